/* SPDX-License-Identifier: MIT */
/* tests/test_p3109_family.c - the P3109 family by its parameters (minifloat/p3109_family.h), unit tier:
 * - the working group's value tables (tests/vectors/p3109: whole tables for K = 3 ... 8 and Binary4p2sf,
 *   the first and last 40 rows of larger ones in sampled/), each code decoded and compared exactly, from the
 *   tables' text by an integer hex-float reader (values reach 2^32765, far beyond binary64);
 * - every member whose values and overflow boundary the oracle can compute in binary64 (no value at 2^1023
 *   or above: all of K = 3 ... 10, most of K = 11 ... 16), every code up to K = 10 and a sample above
 *   (MF_TEST_SAMPLE=k: one member in k),
 *   against the breakpoint oracle (tests/oracle/breakpoints.h, built here from the report's formulas and not from
 *   the library): the value of each code, and the rounding of each value, of the midpoints between neighbours
 *   and of the binary64 numbers next to both, in rn, rna, rz, ru and rd under SatNone, SatFinite and SatPropagate;
 * - StochasticA, B and C with N = 1 ... 6 random bits, every R, against the report's formulas evaluated here in
 *   integers on values a known fraction of a step above a code;
 * - the K = 8 rows and Binary4p2sf of mf_format: the same parameters both ways, the same decoding of every code
 *   and the same rounding as mf_from_f64 in every mode, policy and a set of random bits;
 * - the argument checks.
 */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include "mf_test.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "oracle/breakpoints.h"

#ifndef MF_P3109_VECTOR_DIR
#error "MF_P3109_VECTOR_DIR must name tests/vectors/p3109"
#endif

/* ---- the value tables ------------------------------------------------------------------------------------ */

/* A value as an exact integer pair: (-1)^neg * m * 2^e with m odd, or m = 0 for zero. */
typedef struct {
    int neg;
    uint64_t m;
    long e;
} exact;

static exact normalise(int neg, uint64_t m, long e)
{
    exact r;
    r.neg = neg, r.m = m, r.e = m ? e : 0;
    while (r.m && !(r.m & 1u))
        r.m >>= 1, r.e++;
    return r;
}

/* "[-]0x<hex>[.<hex>]p<exp>" as C's %a and R's sprintf("%a") print it; 0 if the text is not one */
static int parse_hexfloat(const char *s, exact *out)
{
    int neg = 0, nfrac = 0, frac = 0, digits = 0;
    uint64_t m = 0;
    long e;
    char *end;
    if (*s == '-')
        neg = 1, s++;
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return 0;
    for (s += 2; *s && *s != 'p' && *s != 'P'; s++) {
        int d;
        if (*s == '.') {
            frac = 1;
            continue;
        }
        d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
        if (d < 0 || ++digits > 15)
            return 0;
        m = m << 4 | (uint64_t)d;
        nfrac += frac;
    }
    if (*s == 0)
        return 0;
    e = strtol(s + 1, &end, 10);
    if (*end != 0)
        return 0;
    *out = normalise(neg, m, e - 4L * nfrac);
    return 1;
}

static int parse_table_name(const char *file, mf_p3109 *f)
{
    char s, d;
    return sscanf(file, "Binary%dp%d%c%c.csv", &f->k, &f->p, &s, &d) == 4 && (s == 's' || s == 'u') &&
           (d == 'e' || d == 'f') && ((f->is_signed = s == 's'), (f->extended = d == 'e'), 1);
}

/* One table: each row's code decoded and compared. The report's facts, written here apart from the library:
 * the one NaN at 2^(K-1) signed, 2^K - 1 unsigned (4.7.2); subnormals the nonzero codes below 2^(P-1) in
 * magnitude. The tables print the NaN as "Inf" (tests/vectors/p3109/README.md): read so at that code only. */
static unsigned check_table(const char *dir, const char *file, int whole)
{
    mf_p3109 f;
    char path[1100], line[256];
    unsigned rows = 0, infs = 0;
    uint32_t expect_code = 0;
    FILE *in;
    ck_assert_msg(parse_table_name(file, &f), "%s: not a table name", file);
    ck_assert_int_eq(mf_p3109_check(f), MF_OK);
    {
        const uint32_t nan_code = f.is_signed ? 1u << (f.k - 1) : (1u << f.k) - 1u;
        const uint32_t mag_mask = f.is_signed ? (1u << (f.k - 1)) - 1u : (1u << f.k) - 1u;
        ck_assert_msg(snprintf(path, sizeof path, "%s/%s", dir, file) < (int)sizeof path, "%s: path too long", file);
        in = fopen(path, "r");
        ck_assert_msg(in != NULL, "cannot open %s", path);
        ck_assert_msg(fgets(line, sizeof line, in) && strncmp(line, "codepoint,", 10) == 0, "%s: header", path);
        while (fgets(line, sizeof line, in)) {
            char value[64], mark[8] = "";
            unsigned code;
            mf_p3109_value v;
            int n = sscanf(line, "0x%x,%63[^,],%7[^\n]", &code, value, mark);
            ck_assert_msg(n >= 2, "%s: row \"%s\"", path, line);
            if (whole)
                ck_assert_uint_eq(code, expect_code);
            expect_code = code + 1;
            ck_assert_int_eq(mf_p3109_decode(f, code, &v), MF_OK);
            if (strcmp(value, "Inf") == 0 || strcmp(value, "-Inf") == 0 || strcmp(value, "NaN") == 0) {
                if (code == nan_code) {
                    MF_EXPECT(v.cls == MF_P3109_CLASS_NAN, "%s 0x%x: NaN, class %d", file, code, v.cls);
                } else {
                    ck_assert_msg(f.extended && strcmp(value, "NaN") != 0, "%s 0x%x: %s", file, code, value);
                    MF_EXPECT(v.cls == (value[0] == '-' ? MF_P3109_CLASS_NEG_INF : MF_P3109_CLASS_POS_INF),
                              "%s 0x%x: %s, class %d", file, code, value, v.cls);
                    infs++;
                }
            } else {
                exact want, got;
                const int sub = mark[0] == '*' || mark[0] == '!';
                const uint32_t mag = code & mag_mask;
                const int neg = v.cls == MF_P3109_CLASS_NEG_NORMAL || v.cls == MF_P3109_CLASS_NEG_SUBNORMAL;
                ck_assert_msg(parse_hexfloat(value, &want), "%s 0x%x: value \"%s\"", file, code, value);
                got = normalise(neg, v.significand, v.exponent);
                MF_EXPECT(want.m == got.m && want.e == got.e && (want.neg == got.neg || want.m == 0),
                          "%s 0x%x: %s, decoded %s%u * 2^%d (class %d)", file, code, value, neg ? "-" : "",
                          v.significand, v.exponent, v.cls);
                MF_EXPECT(sub == (mag != 0 && mag < (1u << (f.p - 1))), "%s 0x%x: subnormal mark \"%s\"", file, code,
                          mark);
                MF_EXPECT(sub == (v.cls == MF_P3109_CLASS_NEG_SUBNORMAL || v.cls == MF_P3109_CLASS_POS_SUBNORMAL),
                          "%s 0x%x: class %d", file, code, v.cls);
            }
            rows++;
        }
        fclose(in);
        if (whole) {
            ck_assert_uint_eq(rows, 1u << f.k);
            ck_assert_uint_eq(infs, f.extended ? (f.is_signed ? 2u : 1u) : 0u);
        }
    }
    return rows;
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* every table of one folder: *count tables, returns rows */
static unsigned check_folder(const char *sub, int whole, unsigned *count)
{
    static char names[256][64];
    char dir[1024];
    unsigned n = 0, rows = 0;
    struct dirent *e;
    DIR *d;
    ck_assert(snprintf(dir, sizeof dir, "%s/%s", MF_P3109_VECTOR_DIR, sub) < (int)sizeof dir);
    d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "Binary", 6) == 0 && strlen(e->d_name) < sizeof names[0] && n < 256)
            memcpy(names[n++], e->d_name, strlen(e->d_name) + 1);
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    for (unsigned i = 0; i < n; i++)
        rows += check_table(dir, names[i], whole);
    *count = n;
    return rows;
}

START_TEST(test_family_value_tables)
{
    static const char *const whole[] = {"K3", "K4", "K5", "K6", "K7", "K8"};
    unsigned tables, rows, total = 0;
    for (size_t q = 0; q < sizeof whole / sizeof whole[0]; q++) {
        const int k = 3 + (int)q;
        rows = check_folder(whole[q], 1, &tables);
        ck_assert_uint_eq(tables, (unsigned)(4 * k - 2)); /* every member of the K */
        printf("%s: %u tables, %u codes\n", whole[q], tables, rows);
        total += tables;
    }
    rows = check_folder(".", 1, &tables); /* Binary4p2sf, which test_p3109 reads too */
    printf("Binary4p2sf: %u tables, %u codes\n", tables, rows);
    rows = check_folder("sampled", 0, &tables);
    ck_assert_uint_ge(tables, 32u);
    printf("K = 9 ... 16, first and last rows: %u tables, %u codes\n", tables, rows);
    ck_assert_uint_ge(total, 120u);
}
END_TEST

/* ---- the breakpoint oracle on every member with at most 11 exponent bits ----------------------------------- */

static mfo_fmt oracle_fmt(mf_p3109 f)
{
    mfo_fmt o;
    o.tag = "family";
    o.bits = f.k;
    o.mbits = f.p - 1;
    o.ebits = f.is_signed ? f.k - f.p : f.k - f.p + 1;
    o.bias = 1 << (o.ebits - 1);
    o.kind = f.is_signed ? (f.extended ? MFO_KIND_P3109SE : MFO_KIND_P3109SF)
                         : (f.extended ? MFO_KIND_P3109UE : MFO_KIND_P3109UF);
    return o;
}

static const mf_round MODES[5] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO, MF_ROUND_UP,
                                  MF_ROUND_DOWN};
static const mfo_mode OMODES[5] = {MFO_RN, MFO_RNA, MFO_RZ, MFO_RU, MFO_RD};
/* the oracle's saturate argument 0, 1, 2: SatNone, SatFinite, SatPropagate */
static const mf_overflow POLICIES[3] = {MF_OVERFLOW_IEEE, MF_OVERFLOW_SATURATE, MF_OVERFLOW_PROPAGATE};

static unsigned long check_member(mf_p3109 f)
{
    const mfo_fmt o = oracle_fmt(f);
    const uint32_t max = mfo_max_code(&o), sign = mfo_sign_bit(&o);
    unsigned long n = 0;
    /* every code up to K = 10; above, the lowest and highest 256 and every 97th between */
    for (uint32_t c = 0; c <= max; c += f.k <= 10 || c < 256 || c + 256 > max ? 1u : 97u) {
        const double v = mfo_mag_value(&o, c), next = mfo_mag_value(&o, c + 1), mid = (v + next) / 2;
        const double xs[6] = {
            v, nextafter(v, INFINITY), mid, nextafter(mid, 0), nextafter(mid, INFINITY), c ? nextafter(v, 0) : v};
        /* the value of code c, and of its negative */
        MF_EXPECT(mf_p3109_to_f64(f, c) == v, "k%dp%d%c%c 0x%x: %a, oracle %a", f.k, f.p, f.is_signed ? 's' : 'u',
                  f.extended ? 'e' : 'f', c, mf_p3109_to_f64(f, c), v);
        if (sign && c)
            MF_EXPECT(mf_p3109_to_f64(f, c | sign) == -v, "k%dp%d 0x%x: negative", f.k, f.p, c);
        if (o.ebits <= 8) /* binary32 holds these values too */
            MF_EXPECT((double)mf_p3109_to_f32(f, c) == v, "k%dp%d 0x%x: f32 %a", f.k, f.p, c,
                      (double)mf_p3109_to_f32(f, c));
        for (int q = 0; q < 6; q++)
            for (int neg = 0; neg <= 1; neg++)
                for (int m = 0; m < 5; m++)
                    for (int sat = 0; sat <= 2; sat++) {
                        const double x = neg ? -xs[q] : xs[q];
                        const uint32_t want = mfo_round_slow(&o, OMODES[m], sat, x);
                        const uint32_t got = mf_p3109_from_f64(f, x, MODES[m], POLICIES[sat], 0);
                        MF_EXPECT(got == want, "k%dp%d%c%c %a mode %d sat %d: 0x%x, oracle 0x%x", f.k, f.p,
                                  f.is_signed ? 's' : 'u', f.extended ? 'e' : 'f', x, (int)MODES[m], sat, got, want);
                        n++;
                    }
    }
    /* infinities and NaN in, every policy */
    for (int sat = 0; sat <= 2; sat++)
        for (int m = 0; m < 5; m++) {
            const mf_overflow pol = POLICIES[sat];
            MF_EXPECT(mf_p3109_from_f64(f, INFINITY, MODES[m], pol, 0) == mfo_round_slow(&o, OMODES[m], sat, INFINITY),
                      "k%dp%d +inf", f.k, f.p);
            MF_EXPECT(mf_p3109_from_f64(f, -INFINITY, MODES[m], pol, 0) ==
                          mfo_round_slow(&o, OMODES[m], sat, -INFINITY),
                      "k%dp%d -inf", f.k, f.p);
            MF_EXPECT(mf_p3109_from_f64(f, NAN, MODES[m], pol, 0) == mfo_round_slow(&o, OMODES[m], sat, NAN),
                      "k%dp%d NaN", f.k, f.p);
        }
    return n;
}

START_TEST(test_family_oracle)
{
    const int k = 3 + _i; /* K = 3 ... 16 */
    unsigned long n = 0, sample = 0;
    unsigned members = 0;
    for (int is_signed = 0; is_signed <= 1; is_signed++)
        for (int p = 1; p <= (is_signed ? k - 1 : k); p++)
            for (int ext = 0; ext <= 1; ext++) {
                const mf_p3109 f = {k, p, is_signed, ext};
                const mfo_fmt o = oracle_fmt(f);
                /* the oracle computes in binary64: every value, the boundary above max and the sum of two
                 * neighbours (its midpoints) must be binary64 numbers */
                if (o.ebits > 11 || !isfinite(2 * mfo_mag_value(&o, mfo_max_code(&o) + 1)))
                    continue;
                if (!mf_test_take(&sample)) /* MF_TEST_SAMPLE: one member in k */
                    continue;
                n += check_member(f);
                members++;
            }
    printf("K = %d: %u members, %lu roundings against the oracle\n", k, members, n);
    ck_assert_uint_gt(members, 0);
}
END_TEST

/* ---- the mf_format rows --------------------------------------------------------------------------------------- */

START_TEST(test_family_rows)
{
    unsigned rows = 0;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int q = 0; q < MF_FORMAT_COUNT; q++) {
        const mf_format fmt = (mf_format)q;
        mf_p3109 f;
        mf_format_desc d;
        if (mf_p3109_of(fmt, &f) != MF_OK)
            continue;
        rows++;
        ck_assert_int_eq(mf_format_describe(fmt, &d), MF_OK);
        ck_assert_int_eq(f.k, d.bits);
        ck_assert_int_eq(f.p, d.man_bits + 1);
        ck_assert_int_eq(mf_p3109_format(f), fmt);
        for (uint32_t c = 0; c < (1u << f.k); c++) {
            const double a = mf_to_f64(fmt, c), b = mf_p3109_to_f64(f, c);
            const float a32 = mf_to_f32(fmt, c), b32 = mf_p3109_to_f32(f, c);
            MF_EXPECT(memcmp(&a, &b, sizeof a) == 0, "%s 0x%x: %a, row %a", mf_format_name(fmt), c, b, a);
            MF_EXPECT(memcmp(&a32, &b32, sizeof a32) == 0, "%s 0x%x: f32 %a, row %a", mf_format_name(fmt), c,
                      (double)b32, (double)a32);
        }
        for (int t = 0; t < 4000; t++) { /* values near the format's range, both signs, every mode and policy */
            double x;
            uint32_t rbits;
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            x = ldexp((double)(s >> 11) / 9007199254740992.0, (int)(s % 160) - 80) * (s & 1u << 20 ? -1 : 1);
            rbits = (uint32_t)(s >> 32);
            for (int m = 0; m < MF_ROUND_COUNT; m++)
                for (int o = 0; o < MF_OVERFLOW_COUNT; o++)
                    MF_EXPECT(mf_p3109_from_f64(f, x, (mf_round)m, (mf_overflow)o, rbits) ==
                                  mf_from_f64(fmt, x, (mf_round)m, (mf_overflow)o, rbits),
                              "%s %a mode %d policy %d", mf_format_name(fmt), x, m, o);
        }
    }
    ck_assert_uint_eq(rows, 31u); /* 30 K = 8 members and Binary4p2sf */
    {
        const mf_p3109 b10 = {10, 4, 0, 1};
        mf_p3109 out;
        ck_assert_int_eq(mf_p3109_format(b10), MF_FORMAT_COUNT);
        ck_assert_int_eq(mf_p3109_of(MF_FP8_E4M3, &out), MF_E_FORMAT);
        ck_assert_int_eq(mf_p3109_of(MF_BINARY8P4SE, NULL), MF_E_NULL);
    }
}
END_TEST

/* A member into another: the same as decoding into binary64 (exact for both here) and rounding once. */
START_TEST(test_family_recode)
{
    const mf_p3109 from = {10, 6, 1, 1}, to[3] = {{6, 3, 1, 0}, {12, 5, 0, 1}, {10, 6, 1, 1}};
    for (int t = 0; t < 3; t++)
        for (uint32_t c = 0; c < 1024; c++)
            for (int m = 0; m < MF_ROUND_COUNT; m++)
                for (int o = 0; o < MF_OVERFLOW_COUNT; o++) {
                    const uint32_t want = mf_p3109_from_f64(to[t], mf_p3109_to_f64(from, c), (mf_round)m,
                                                            (mf_overflow)o, 0x9000000u);
                    MF_EXPECT(mf_p3109_recode(to[t], from, c, (mf_round)m, (mf_overflow)o, 0x9000000u) == want,
                              "to %d code 0x%x mode %d policy %d", t, c, m, o);
                }
    for (uint32_t c = 0; c < 1024; c++) /* into itself: the identity */
        MF_EXPECT(mf_p3109_recode(from, from, c, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0) == c, "0x%x", c);
}
END_TEST

/* StochasticA with N bits: up iff floor(frac * 2^N) + R >= 2^N, R in rbits' top N bits. */
START_TEST(test_family_stochastic_bits)
{
    const mf_p3109 f = {5, 3, 1, 1}; /* codes 1/4 apart on [1, 2) */
    for (int n = 1; n <= 8; n++)
        for (uint32_t r = 0; r < (1u << n); r++)
            for (int num = 0; num < 64; num++) { /* 1 + num/256: a fraction num/64 of the step */
                const double x = 1.0 + num / 256.0;
                const uint32_t lo = mf_p3109_from_f64(f, x, MF_ROUND_TOWARD_ZERO, MF_OVERFLOW_IEEE, 0);
                const int up = (num * (1 << n)) / 64 + (int)r >= (1 << n) && num % 64 != 0;
                const uint32_t got = mf_p3109_from_f64(f, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, r << (32 - n));
                MF_EXPECT(got == lo + (uint32_t)up, "N %d R %u x %a: 0x%x, want 0x%x", n, r, x, got, lo + up);
            }
}
END_TEST

/* The report's three stochastic modes with N bits, from its formulas in integers: x lies num/2^M of a step above
 * code lo (nu = num / 2^M exactly), and the mode goes up iff, for R = 0 ... 2^N - 1,
 *   A: floor(nu 2^N) + R >= 2^N;  B: floor(nu 2^(N+1)) + 2R + 1 >= 2^(N+1);  C: RNE(nu 2^N) + R >= 2^N.
 * Both signs (the magnitude rounds), a subnormal step and the step into +-max's overflow, every policy. */
static int stochastic_up(int kind, int n, uint32_t r, uint32_t num, int mbits)
{
    const uint64_t a = (uint64_t)num << n; /* nu 2^N = a / 2^M */
    uint64_t t;
    if (kind == 0)
        return (a >> mbits) + r >= (1ull << n);
    if (kind == 1)
        return (((uint64_t)num << (n + 1)) >> mbits) + 2 * (uint64_t)r + 1 >= (2ull << n);
    t = a >> mbits; /* RNE of a / 2^M */
    {
        const uint64_t rem = a & ((1ull << mbits) - 1), half = 1ull << (mbits - 1);
        t += rem > half || (rem == half && (t & 1));
    }
    return t + r >= (1ull << n);
}

START_TEST(test_family_stochastic_abc)
{
    static const mf_p3109 fs[3] = {{6, 3, 1, 1}, {7, 4, 0, 0}, {5, 2, 1, 0}};
    enum { M = 7 };
    unsigned long n_checked = 0;
    for (int t = 0; t < 3; t++) {
        const mf_p3109 f = fs[t];
        const uint32_t maxc = f.is_signed ? (1u << (f.k - 1)) - 1 - (uint32_t)f.extended
                                          : (1u << f.k) - 2 - (uint32_t)f.extended;
        /* codes whose step up is a step of the format: the first (subnormal) ones and the last below max */
        const uint32_t los[4] = {0, 1, maxc - 1, maxc};
        for (int c = 0; c < 4; c++)
            for (int neg = 0; neg <= (f.is_signed ? 1 : 0); neg++) {
                const uint32_t lo = los[c];
                const double vlo = mf_p3109_to_f64(f, lo);
                /* the step above lo: the next code's value, or for max the step below it continued */
                const double step = lo < maxc ? mf_p3109_to_f64(f, lo + 1) - vlo : vlo - mf_p3109_to_f64(f, lo - 1);
                for (uint32_t num = 0; num < (1u << M); num++) {
                    const double mag = vlo + step * num / (1u << M), x = neg ? -mag : mag;
                    for (int kind = 0; kind < 3; kind++)
                        for (int n = 1; n <= 6; n++)
                            for (uint32_t r = 0; r < (1u << n); r++)
                                for (int pol = 0; pol < 3; pol++) {
                                    const int up = num != 0 && stochastic_up(kind, n, r, num, M);
                                    /* up from lo is lo + 1, or above max: what rn gives a value beyond it */
                                    const uint32_t mag_code = lo + (uint32_t)up;
                                    uint32_t want;
                                    if (mag_code > maxc)
                                        want = mf_p3109_from_f64(f, x * 4, MF_ROUND_NEAREST_EVEN, POLICIES[pol], 0);
                                    else
                                        want = mag_code | (neg && mag_code ? 1u << (f.k - 1) : 0u);
                                    const uint32_t got =
                                        mf_p3109_from_f64_sr(f, x, (mf_p3109_stochastic)kind, n, r, POLICIES[pol]);
                                    MF_EXPECT(got == want, "k%dp%d %c num %u kind %c N %d R %u pol %d: 0x%x, want 0x%x",
                                              f.k, f.p, neg ? '-' : '+', num, 'A' + kind, n, r, pol, got, want);
                                    n_checked++;
                                }
                }
            }
    }
    /* A is MF_ROUND_STOCHASTIC with R in the top N bits */
    for (uint32_t r = 0; r < 16; r++)
        ck_assert_uint_eq(mf_p3109_from_f64_sr(fs[0], 1.3, MF_P3109_STOCHASTIC_A, 4, r, MF_OVERFLOW_IEEE),
                          mf_p3109_from_f64(fs[0], 1.3, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, r << 28));
    /* arguments */
    ck_assert_uint_eq(mf_p3109_from_f64_sr(fs[0], 1.0, MF_P3109_STOCHASTIC_B, 0, 0, MF_OVERFLOW_IEEE), UINT32_MAX);
    ck_assert_uint_eq(mf_p3109_from_f64_sr(fs[0], 1.0, MF_P3109_STOCHASTIC_B, 32, 0, MF_OVERFLOW_IEEE), UINT32_MAX);
    ck_assert_uint_eq(mf_p3109_from_f64_sr(fs[0], 1.0, MF_P3109_STOCHASTIC_C, 4, 16, MF_OVERFLOW_IEEE), UINT32_MAX);
    ck_assert_uint_eq(mf_p3109_from_f64_sr(fs[0], 1.0, (mf_p3109_stochastic)3, 4, 0, MF_OVERFLOW_IEEE), UINT32_MAX);
    ck_assert_uint_eq(mf_p3109_from_f64_sr(fs[0], 1.0, MF_P3109_STOCHASTIC_C, 4, 0, (mf_overflow)MF_OVERFLOW_COUNT),
                      UINT32_MAX);
    printf("%lu stochastic roundings against the formulas\n", n_checked);
}
END_TEST

/* ---- bulk ------------------------------------------------------------------------------------------------- */

static void fill_f32(float *x, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = (float)ldexp((double)(s >> 40) / 16777216.0, (int)(s % 90) - 45) * (s & 1u << 20 ? -1.0f : 1.0f);
        if (i % 97 == 5)
            x[i] = i % 2 ? INFINITY : NAN;
    }
}

/* The K = 8 members against mf_convert into and out of their rows: the same bytes and counts in every mode. */
START_TEST(test_family_bulk_rows)
{
    enum { N = 4099 };
    static float x[N], y[N], y2[N];
    static uint8_t c[N], c2[N];
    const mf_p3109 members[3] = {{8, 4, 1, 1}, {8, 3, 0, 0}, {8, 1, 0, 1}};
    fill_f32(x, N, 0x1234567u);
    for (int q = 0; q < 3; q++) {
        const mf_format row = mf_p3109_format(members[q]);
        for (int m = 0; m < MF_ROUND_COUNT; m++)
            for (int o = 0; o < MF_OVERFLOW_COUNT; o++) {
                mf_stats s1, s2;
                mf_opts op;
                memset(&op, 0, sizeof op);
                op.round = (mf_round)m, op.overflow = (mf_overflow)o, op.seed = 77, op.sr_offset = 1000, op.stats = &s1;
                ck_assert_int_eq(mf_p3109_convert_from_f32(members[q], c, x, N, &op), MF_OK);
                op.stats = &s2;
                ck_assert_int_eq(mf_convert(row, c2, MF_FP32, x, N, &op), MF_OK);
                ck_assert_msg(memcmp(c, c2, N) == 0, "%s mode %d policy %d", mf_format_name(row), m, o);
                ck_assert_msg(memcmp(&s1, &s2, sizeof s1) == 0, "%s mode %d policy %d: stats", mf_format_name(row), m,
                              o);
                op.stats = &s1;
                ck_assert_int_eq(mf_p3109_convert_to_f32(y, members[q], c, N, &op), MF_OK);
                op.stats = &s2;
                ck_assert_int_eq(mf_convert(MF_FP32, y2, row, c, N, &op), MF_OK);
                ck_assert_msg(memcmp(y, y2, sizeof y) == 0, "%s to f32, mode %d", mf_format_name(row), m);
                ck_assert_msg(memcmp(&s1, &s2, sizeof s1) == 0, "%s to f32: stats", mf_format_name(row));
            }
    }
}
END_TEST

/* Other members against the scalar functions, element by element (the stream's bits by mf_sr_rbits), and two
 * threads against one on an array the team splits. */
START_TEST(test_family_bulk_scalar)
{
    enum { N = (1 << 20) + 77 };
    static float x[N], y[N];
    static uint16_t c[N], c2[N];
    static uint8_t b[N];
    const mf_p3109 members[4] = {{10, 4, 0, 1}, {16, 1, 1, 1}, {12, 7, 1, 0}, {5, 2, 1, 1}};
    fill_f32(x, N, 0xABCDEFu);
    for (int q = 0; q < 4; q++) {
        const mf_p3109 f = members[q];
        const unsigned width = f.k <= 8 ? 8u : 16u;
        for (int m = 0; m < MF_ROUND_COUNT; m++) {
            mf_opts op;
            mf_stats s1, s2;
            memset(&op, 0, sizeof op);
            op.round = (mf_round)m, op.overflow = MF_OVERFLOW_SATURATE, op.seed = 5, op.sr_offset = 3, op.stats = &s1;
            ck_assert_int_eq(mf_p3109_convert_from_f32(f, f.k <= 8 ? (void *)b : (void *)c, x, N, &op), MF_OK);
            for (size_t i = 0; i < N; i += 1 + i % 13) {
                const uint32_t want = mf_p3109_from_f32(f, x[i], (mf_round)m, MF_OVERFLOW_SATURATE,
                                                        m == MF_ROUND_STOCHASTIC ? mf_sr_rbits(5, 3 + i, width) : 0);
                MF_EXPECT((f.k <= 8 ? b[i] : c[i]) == want, "k%dp%d mode %d [%zu] %a: 0x%x, scalar 0x%x", f.k, f.p, m,
                          i, (double)x[i], f.k <= 8 ? b[i] : c[i], want);
            }
            if (m == MF_ROUND_NEAREST_EVEN && f.k > 8) { /* two threads: the same codes and counts */
                op.threads = 2, op.stats = &s2;
                ck_assert_int_eq(mf_p3109_convert_from_f32(f, c2, x, N, &op), MF_OK);
                ck_assert(memcmp(c, c2, sizeof c) == 0);
                ck_assert(memcmp(&s1, &s2, sizeof s1) == 0);
            }
        }
        /* codes back to binary32, rn and SatNone: the scalar decoding (exact where binary32 holds the value) */
        ck_assert_int_eq(mf_p3109_convert_to_f32(y, f, f.k <= 8 ? (void *)b : (void *)c, N, NULL), MF_OK);
        for (size_t i = 0; i < N; i += 1 + i % 11) {
            const float want = mf_p3109_to_f32(f, f.k <= 8 ? b[i] : c[i]);
            MF_EXPECT(memcmp(&y[i], &want, 4) == 0, "k%dp%d [%zu]: %a, scalar %a", f.k, f.p, i, (double)y[i],
                      (double)want);
        }
    }
    { /* Binary16p1se's values pass binary32's range: rounding them into it overflows and underflows */
        const mf_p3109 big = {16, 1, 1, 1};
        const uint16_t codes[3] = {0x7FFE, 0x0001, 0x4000 + 127}; /* max (2^16382), 2^-16382, 2^127 */
        mf_stats st;
        mf_opts op;
        memset(&op, 0, sizeof op);
        op.stats = &st;
        ck_assert_int_eq(mf_p3109_convert_to_f32(y, big, codes, 3, &op), MF_OK);
        ck_assert(y[0] == INFINITY && y[1] == 0.0f && y[2] == 0x1p127f);
        ck_assert_uint_eq(st.overflow, 1);
        ck_assert_uint_eq(st.underflow, 1);
    }
}
END_TEST

START_TEST(test_family_bulk_args)
{
    static float x[64], y[64];
    static uint16_t c[64];
    const mf_p3109 ok = {10, 4, 1, 1}, bad = {10, 10, 1, 1};
    mf_opts op;
    mf_stats st;
    memset(&op, 0, sizeof op);
    memset(y, 0x5A, sizeof y);
    ck_assert_int_eq(mf_p3109_convert_from_f32(bad, c, x, 64, NULL), MF_E_ARG);
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, NULL, x, 64, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_p3109_convert_to_f32(y, ok, NULL, 64, NULL), MF_E_NULL);
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, c, x, SIZE_MAX, NULL), MF_E_SIZE);
    ck_assert_int_eq(mf_p3109_convert_to_f32(y, ok, (const void *)((const char *)y + 100), 64, NULL), MF_E_OVERLAP);
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, (void *)((char *)x + 128), x, 64, NULL), MF_E_OVERLAP);
    op.round = (mf_round)MF_ROUND_COUNT;
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, c, x, 64, &op), MF_E_ROUND);
    op.round = MF_ROUND_NEAREST_EVEN, op.overflow = (mf_overflow)-1;
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, c, x, 64, &op), MF_E_POLICY);
    op.overflow = MF_OVERFLOW_IEEE, op.threads = -1;
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, c, x, 64, &op), MF_E_ARG);
    op.threads = 0, op.profile = MF_PROFILE_TORCH;
    ck_assert_int_eq(mf_p3109_convert_to_f32(y, ok, c, 64, &op), MF_E_PROFILE);
    for (int i = 0; i < 64; i++) /* every error above wrote nothing */
        ck_assert_uint_eq(mf_test_f32_bits(y[i]), 0x5A5A5A5Au);
    op.profile = MF_PROFILE_DEFAULT, op.stats = &st;
    memset(&st, 0xFF, sizeof st);
    ck_assert_int_eq(mf_p3109_convert_from_f32(ok, NULL, NULL, 0, &op), MF_OK); /* empty: the stats zeroed */
    ck_assert_uint_eq(st.overflow + st.underflow + st.subnormal + st.nan + st.inexact, 0);
    c[0] = 0xFC00 | 0x3C; /* bits above K = 10 are ignored */
    ck_assert_int_eq(mf_p3109_convert_to_f32(y, ok, c, 1, NULL), MF_OK);
    ck_assert(y[0] == mf_p3109_to_f32(ok, 0x3C));
}
END_TEST

START_TEST(test_family_args)
{
    static const mf_p3109 bad[] = {{2, 1, 1, 1}, {17, 4, 1, 1}, {8, 0, 1, 1}, {8, 8, 1, 1},
                                   {8, 9, 0, 1}, {8, 4, 2, 1},  {8, 4, 1, -1}};
    const mf_p3109 ok = {8, 4, 1, 1};
    mf_p3109_value v;
    for (size_t q = 0; q < sizeof bad / sizeof bad[0]; q++) {
        ck_assert_int_eq(mf_p3109_check(bad[q]), MF_E_ARG);
        ck_assert_uint_eq(mf_p3109_from_f64(bad[q], 1.0, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), UINT32_MAX);
        ck_assert_int_eq(mf_p3109_decode(bad[q], 0, &v), MF_E_ARG);
        ck_assert(isnan(mf_p3109_to_f64(bad[q], 0)));
        ck_assert_int_eq(mf_p3109_format(bad[q]), MF_FORMAT_COUNT);
    }
    ck_assert_int_eq(mf_p3109_check(ok), MF_OK);
    ck_assert_uint_eq(mf_p3109_from_f64(ok, 1.0, (mf_round)MF_ROUND_COUNT, MF_OVERFLOW_IEEE, 0), UINT32_MAX);
    ck_assert_uint_eq(mf_p3109_from_f64(ok, 1.0, MF_ROUND_NEAREST_EVEN, (mf_overflow)MF_OVERFLOW_COUNT, 0), UINT32_MAX);
    ck_assert_int_eq(mf_p3109_decode(ok, 0x100, &v), MF_E_ARG); /* a code of more than K bits */
    ck_assert_int_eq(mf_p3109_decode(ok, 0x10, NULL), MF_E_NULL);
    ck_assert(isnan(mf_p3109_to_f64(ok, 0x100)));
    ck_assert_uint_eq(mf_p3109_recode(ok, ok, 0x100, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0), UINT32_MAX);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("p3109_family");
    TCase *tc = tcase_create("family");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_family_value_tables);
    tcase_add_loop_test(tc, test_family_oracle, 0, 14);
    tcase_add_test(tc, test_family_rows);
    tcase_add_test(tc, test_family_recode);
    tcase_add_test(tc, test_family_stochastic_bits);
    tcase_add_test(tc, test_family_stochastic_abc);
    tcase_add_test(tc, test_family_bulk_rows);
    tcase_add_test(tc, test_family_bulk_scalar);
    tcase_add_test(tc, test_family_bulk_args);
    tcase_add_test(tc, test_family_args);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
