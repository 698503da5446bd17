/* SPDX-License-Identifier: MIT */
/* tests/test_p3109.c - the IEEE P3109 formats (unit tier): the working group's value tables, the report's
 * projection rules on hand-checked cases, and mf_convert against the scalar core.
 *
 * The files of tests/vectors/p3109 are the working group's value tables (P3109/Public, "Value Tables/HexStrings",
 * tests/vectors/p3109/README.md): codepoint, value as C's %a prints it, "*" or "!" for a subnormal. Every
 * code of each table is decoded by the library and compared exactly, class included. The tables print the
 * format's one NaN as "Inf" (their generator's misprint, in every table read: the report says NaN); the
 * test reads "Inf" at the NaN code as NaN, and nowhere else.
 */
#include "mf_test.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#ifndef MF_P3109_VECTOR_DIR
#error "MF_P3109_VECTOR_DIR must name tests/vectors/p3109"
#endif

/* every K = 8 table (folder K8: signed P = 1 ... 7 and unsigned P = 1 ... 8, extended and finite, each a row of
 * mf_format) and Binary4p2sf (the folder itself) */
static const char *const tables[] = {
    "Binary4p2sf", "K8/Binary8p1se", "K8/Binary8p1sf", "K8/Binary8p2se", "K8/Binary8p2sf", "K8/Binary8p3se",
    "K8/Binary8p3sf", "K8/Binary8p4se", "K8/Binary8p4sf", "K8/Binary8p5se", "K8/Binary8p5sf", "K8/Binary8p6se",
    "K8/Binary8p6sf", "K8/Binary8p7se", "K8/Binary8p7sf", "K8/Binary8p1ue", "K8/Binary8p1uf", "K8/Binary8p2ue",
    "K8/Binary8p2uf", "K8/Binary8p3ue", "K8/Binary8p3uf", "K8/Binary8p4ue", "K8/Binary8p4uf", "K8/Binary8p5ue",
    "K8/Binary8p5uf", "K8/Binary8p6ue", "K8/Binary8p6uf", "K8/Binary8p7ue", "K8/Binary8p7uf", "K8/Binary8p8ue",
    "K8/Binary8p8uf"};
#define NTABLES (sizeof tables / sizeof tables[0])

/* The report's facts of a format name Binary<K>p<P><s|u><e|f> (section 3), apart from the library's row. */
typedef struct {
    int k, p, is_signed, extended;
} p3109_params;

static p3109_params parse_name(const char *name)
{
    p3109_params r;
    char s, d;
    ck_assert_int_eq(sscanf(name, "Binary%dp%d%c%c", &r.k, &r.p, &s, &d), 4);
    r.is_signed = s == 's';
    r.extended = d == 'e';
    return r;
}

static mf_format lib_format(const char *table)
{
    char lower[32];
    size_t i;
    mf_format f;
    for (i = 0; table[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)(table[i] >= 'A' && table[i] <= 'Z' ? table[i] - 'A' + 'a' : table[i]);
    lower[i] = '\0';
    ck_assert_msg(mf_format_from_name(lower, &f) == MF_OK, "no format %s", lower);
    return f;
}

START_TEST(test_p3109_value_tables)
{
    const char *name = strchr(tables[_i], '/') ? strchr(tables[_i], '/') + 1 : tables[_i];
    const p3109_params pp = parse_name(name);
    const mf_format fmt = lib_format(name);
    const uint32_t nan_code = pp.is_signed ? 1u << (pp.k - 1) : (1u << pp.k) - 1u; /* report 4.7.2 */
    const int bias = pp.is_signed ? 1 << (pp.k - pp.p - 1) : 1 << (pp.k - pp.p);
    const double min_normal = ldexp(1.0, 1 - bias);
    char path[512], line[256];
    uint32_t rows = 0, infs = 0, subs = 0;
    mf_format_desc d;
    FILE *f;

    ck_assert_int_eq(mf_format_describe(fmt, &d), MF_OK);
    ck_assert_int_eq(d.bits, pp.k);
    ck_assert_int_eq(d.man_bits, pp.p - 1);
    ck_assert_int_eq(d.bias, bias);
    ck_assert_int_eq(d.is_signed, pp.is_signed);
    ck_assert_int_eq(d.has_inf, pp.extended);
    ck_assert_uint_eq(d.nan_code, nan_code);
    snprintf(path, sizeof path, "%s/%s.csv", MF_P3109_VECTOR_DIR, tables[_i]);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_msg(fgets(line, sizeof line, f) && strncmp(line, "codepoint,", 10) == 0, "%s: header", path);
    while (fgets(line, sizeof line, f)) {
        char value[64], mark[8] = "";
        unsigned code;
        double want = 0, got64;
        float got32;
        int n = sscanf(line, "0x%x,%63[^,],%7[^\n]", &code, value, mark);
        ck_assert_msg(n >= 2, "%s: row \"%s\"", path, line);
        ck_assert_uint_eq(code, rows);
        got64 = mf_to_f64(fmt, code);
        got32 = mf_to_f32(fmt, code);
        if (strcmp(value, "Inf") == 0 || strcmp(value, "-Inf") == 0 || strcmp(value, "NaN") == 0) {
            if (code == nan_code) { /* printed "Inf": the one NaN */
                MF_EXPECT(isnan(got64) && isnan(got32), "%s 0x%02x: NaN, got %a", name, code, got64);
            } else {
                ck_assert_msg(pp.extended && strcmp(value, "NaN") != 0, "%s 0x%02x: %s", name, code, value);
                want = value[0] == '-' ? -INFINITY : INFINITY;
                MF_EXPECT(got64 == want && (double)got32 == want, "%s 0x%02x: %s, got %a", name, code, value, got64);
                infs++;
            }
        } else {
            const int sub = mark[0] == '*' || mark[0] == '!';
            want = strtod(value, NULL);
            MF_EXPECT(got64 == want && (double)got32 == want && !signbit(got64) == !signbit(want),
                      "%s 0x%02x: %s = %a, got %a (f32 %a)", name, code, value, want, got64, (double)got32);
            /* the class: a subnormal is nonzero and below the smallest normal 2^(1-bias) */
            MF_EXPECT(sub == (want != 0 && fabs(want) < min_normal), "%s 0x%02x: subnormal mark \"%s\"", name, code,
                      mark);
            subs += (uint32_t)sub;
        }
        rows++;
    }
    fclose(f);
    ck_assert_uint_eq(rows, 1u << pp.k);
    ck_assert_uint_eq(infs, pp.extended ? (pp.is_signed ? 2u : 1u) : 0u);
    /* subnormals: the nonzero codes with a zero exponent field, on both signs; none at P = 1 */
    ck_assert_uint_eq(subs, (pp.is_signed ? 2u : 1u) * ((1u << (pp.p - 1)) - 1u));
    printf("%-12s %4u codes, %u infinities, %u subnormals\n", name, rows, infs, subs);
}
END_TEST

/* Hand-checked projections (report 4.7.3 - 4.7.5), each with its reason. */
typedef struct {
    const char *fmt;
    double x;
    mf_round r;
    mf_overflow o;
    uint32_t code;
    unsigned events; /* MF_EVENT_* expected, exactly */
    const char *why;
} hand_case;

#define RN MF_ROUND_NEAREST_EVEN
#define RNA MF_ROUND_NEAREST_AWAY
#define RZ MF_ROUND_TOWARD_ZERO
#define RU MF_ROUND_UP
#define RD MF_ROUND_DOWN
#define RO MF_ROUND_ODD
#define NONE MF_OVERFLOW_IEEE
#define FIN MF_OVERFLOW_SATURATE
#define OV (MF_EVENT_OVERFLOW | MF_EVENT_INEXACT)
#define IX MF_EVENT_INEXACT

static const hand_case hand[] = {
    {"binary8p4se", 2.0, RN, NONE, 0x48, 0, "the report's example: 2.0 is 0x48 in Binary8p4se (3.1, NOTE 2)"},
    {"binary8p4se", INFINITY, RN, NONE, 0x7F, 0, "the report's example: Inf is 0x7F"},
    {"binary8p4se", -INFINITY, RN, NONE, 0xFF, 0, "-Inf is 0xFF (4.7.6: Encode(X < 0) = Encode(-X) + 2^(K-1))"},
    {"binary8p4se", 224.0, RN, NONE, 0x7E, 0, "max finite 224 (not E4M3's 448)"},
    {"binary8p4se", 232.0, RN, NONE, 0x7E, IX, "tie between 224 (0x7E, even) and 240: to the even code"},
    {"binary8p4se", 232.5, RN, NONE, 0x7F, OV, "above the tie: rounds to 240 > max, SatNone: +inf"},
    {"binary8p4se", 1e9, RZ, NONE, 0x7E, OV, "SatNone, TowardZero: M^hi"},
    {"binary8p4se", 1e9, RD, NONE, 0x7E, OV, "SatNone, TowardNegative above the range: M^hi"},
    {"binary8p4se", 1e9, RU, NONE, 0x7F, OV, "SatNone, TowardPositive above the range: +inf"},
    {"binary8p4se", -1e9, RU, NONE, 0xFE, OV, "SatNone, TowardPositive below the range: M^lo"},
    {"binary8p4se", -1e9, RD, NONE, 0xFF, OV, "SatNone, TowardNegative below the range: -inf"},
    {"binary8p4se", 1e9, RO, NONE, 0x7F, OV, "SatNone, ToOdd is no rounding toward the range: +inf"},
    {"binary8p4se", 1e9, RN, FIN, 0x7E, OV, "SatFinite: M^hi"},
    {"binary8p4se", INFINITY, RN, FIN, 0x7E, OV, "SatFinite: +inf to M^hi"},
    {"binary8p4se", -INFINITY, RZ, FIN, 0xFE, OV, "SatFinite: -inf to M^lo"},
    {"binary8p4se", -0.0, RN, NONE, 0x00, 0, "one zero: -0 is 0 (4.8.1)"},
    {"binary8p4se", -0x1p-12, RN, NONE, 0x00, MF_EVENT_UNDERFLOW | IX, "a negative value rounding to zero is 0"},
    {"binary8p4se", NAN, RN, FIN, 0x80, MF_EVENT_NAN, "NaN is 0x80 under every projection"},
    {"binary8p3se", 49152.0, RN, NONE, 0x7E, 0, "max finite 49152 (not E5M2's 57344)"},
    {"binary8p3se", 57344.0, RN, NONE, 0x7F, OV, "E5M2's max rounds beyond Binary8p3se's: +inf"},
    {"binary8p4sf", 1e9, RN, NONE, 0x80, OV, "SatNone in a finite format: NaN"},
    {"binary8p4sf", 1e9, RZ, NONE, 0x7F, OV, "SatNone, TowardZero: M^hi = 240 even in a finite format"},
    {"binary8p4sf", INFINITY, RN, NONE, 0x80, OV, "SatNone, +inf into a finite format: NaN"},
    {"binary8p4sf", INFINITY, RZ, NONE, 0x80, OV, "the directed exceptions exclude infinities: NaN"},
    {"binary8p4sf", -INFINITY, RN, FIN, 0xFF, OV, "SatFinite: -inf to M^lo = -240"},
    {"binary8p4ue", -1.0, RN, NONE, 0xFF, OV, "SatNone, negative into unsigned: NaN"},
    {"binary8p4ue", -1.0, RZ, NONE, 0x00, OV | MF_EVENT_UNDERFLOW, "SatNone, TowardZero below the range: M^lo = 0"},
    {"binary8p4ue", -1.0, RU, NONE, 0x00, OV | MF_EVENT_UNDERFLOW, "SatNone, TowardPositive below: M^lo = 0"},
    {"binary8p4ue", -1.0, RD, NONE, 0xFF, OV, "SatNone, TowardNegative below: NaN"},
    {"binary8p4ue", -1.0, RN, FIN, 0x00, OV | MF_EVENT_UNDERFLOW, "SatFinite: M^lo = 0"},
    {"binary8p4ue", -INFINITY, RZ, NONE, 0xFF, OV, "SatNone, -inf, unsigned extended: NaN"},
    {"binary8p4ue", -INFINITY, RN, FIN, 0x00, OV, "SatFinite: -inf to M^lo = 0"},
    {"binary8p4ue", INFINITY, RN, NONE, 0xFE, 0, "+inf is 0xFE in an unsigned extended format"},
    {"binary8p4ue", -0x1p-30, RN, NONE, 0x00, MF_EVENT_UNDERFLOW | IX, "rounds to zero first: in range"},
    {"binary8p4ue", -0x1p-30, RD, NONE, 0xFF, OV, "rounds away to -2^-18 first: below the range, NaN"},
    {"binary8p4ue", 53248.0, RN, NONE, 0xFD, 0, "max finite 53248 at 0xFD"},
    {"binary8p4uf", 1e9, RN, NONE, 0xFF, OV, "SatNone in an unsigned finite format: NaN (0xFF)"},
    {"binary8p1se", 1.5, RN, NONE, 0x40, IX, "P = 1 tie between 1 (0x40) and 2 (0x41): CodeIsEven, 0x40"},
    {"binary8p1se", 3.0, RN, NONE, 0x42, IX, "P = 1 tie between 2 (0x41) and 4 (0x42): to 0x42"},
    {"binary8p1se", 1.5, RNA, NONE, 0x41, IX, "ties away"},
    {"binary8p1se", 1.5, RO, NONE, 0x41, IX, "ToOdd at P = 1: 0x40 is even, round away to 0x41"},
    {"binary8p1se", 3.0, RO, NONE, 0x41, IX, "ToOdd at P = 1: 0x41 is odd, stays"},
    {"binary8p1se", 0x1p-64, RN, NONE, 0x00, MF_EVENT_UNDERFLOW | IX, "half the smallest value 2^-63: to zero"},
    {"binary8p1se", 0x1.8p-64, RN, NONE, 0x01, IX, "above half the smallest: 2^-63, no subnormals at P = 1"},
    {"binary8p1sf", 0x1p64, RO, NONE, 0x80, OV, "ToOdd overflow into a finite format, SatNone: NaN"},
    {"binary8p1sf", 0x1p64, RO, FIN, 0x7F, OV, "the same, SatFinite: M^hi = 2^63"},
    {"binary4p2sf", 3.0, RN, NONE, 0x07, 0, "Binary4p2sf max 3 (E2M1's is 6)"},
    {"binary4p2sf", 3.5, RN, NONE, 0x08, OV, "tie between 3 and 4 (even, beyond max): NaN under SatNone"},
    {"binary4p2sf", 3.5, RN, FIN, 0x07, OV, "SatFinite: 3"},
    {"binary4p2sf", 0.25, RN, NONE, 0x01, MF_EVENT_SUBNORMAL, "the one subnormal, 0.25"},
    {"binary4p2sf", -0.125, RN, NONE, 0x00, MF_EVENT_UNDERFLOW | IX, "tie between 0 and -0.25: 0 (no -0)"},
};

START_TEST(test_p3109_hand_cases)
{
    size_t i;
    for (i = 0; i < sizeof hand / sizeof hand[0]; i++) {
        const hand_case *h = &hand[i];
        mf_format f;
        unsigned ev32 = 0, ev64 = 0;
        uint32_t c32, c64;
        ck_assert_int_eq(mf_format_from_name(h->fmt, &f), MF_OK);
        c32 = mf_from_f32_ev(f, (float)h->x, h->r, h->o, 0, &ev32);
        c64 = mf_from_f64_ev(f, h->x, h->r, h->o, 0, &ev64);
        ck_assert_msg(c32 == h->code && c64 == h->code, "%s %a mode %d policy %d: f32 0x%x f64 0x%x, want 0x%x (%s)",
                      h->fmt, h->x, h->r, h->o, c32, c64, h->code, h->why);
        ck_assert_msg(ev32 == h->events && ev64 == h->events, "%s %a mode %d policy %d: events 0x%x / 0x%x, want 0x%x (%s)",
                      h->fmt, h->x, h->r, h->o, ev32, ev64, h->events, h->why);
    }
}
END_TEST

/* sr is the report's StochasticA with N = 8 (4.7.4): up iff floor(nu * 2^8) + R >= 2^8, R the top 8 bits of
 * rbits (the slice a bulk call gives each element of an 8-bit format), nu the discarded fraction. Written
 * from the report's formula, on three grids: Binary8p4se [1, 1.125], Binary8p4ue's subnormals [2^-18, 2^-17]
 * and Binary4p2sf [2, 3]; the negative values too (unsigned: below the range, 0 under SatFinite). */
START_TEST(test_p3109_stochastic_a)
{
    static const struct {
        const char *fmt;
        double lo, ulp;
        uint32_t lo_code;
    } grids[] = {{"binary8p4se", 1.0, 0.125, 0x40}, {"binary8p4ue", 0x1p-18, 0x1p-18, 0x01}, {"binary4p2sf", 2.0, 1.0, 0x6}};
    size_t g, cases = 0;
    for (g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        mf_format f;
        uint32_t k, r;
        ck_assert_int_eq(mf_format_from_name(grids[g].fmt, &f), MF_OK);
        for (k = 0; k < 256; k++) {
            const double nu = (k + 0.5) / 256.0; /* floor(nu * 2^8) = k */
            const double x = grids[g].lo + nu * grids[g].ulp;
            for (r = 0; r < 256; r++) {
                const uint32_t want = grids[g].lo_code + (k + r >= 256u);
                MF_EXPECT(mf_from_f64(f, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, r << 24) == want,
                          "%s x=%a R=%u: 0x%x, want 0x%x", grids[g].fmt, x, r,
                          mf_from_f64(f, x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_IEEE, r << 24), want);
                MF_EXPECT(mf_from_f64(f, -x, MF_ROUND_STOCHASTIC, MF_OVERFLOW_SATURATE, r << 24) ==
                              (strchr(grids[g].fmt + 9, 'u') ? 0u : want | (1u << (mf_storage_bytes(f, 2) == 1 ? 3 : 7))),
                          "%s -x=%a R=%u", grids[g].fmt, -x, r);
                cases += 2;
            }
        }
    }
    ck_assert_uint_eq(cases, 3u * 256 * 256 * 2);
}
END_TEST

/* mf_convert between f32 / f64 and every P3109 format, and between pairs that go through the run-time loop
 * (another narrow format on either side), against the scalar functions element by element, in every mode and
 * both policies, with the statistics; sr with the stream's rbits. */
#define NV 4096
static float xs[NV];
static double xd[NV];

static uint32_t rnd_state = 0x9E3779B9u;
static uint32_t rnd32(void)
{
    rnd_state ^= rnd_state << 13, rnd_state ^= rnd_state >> 17, rnd_state ^= rnd_state << 5;
    return rnd_state;
}

static void fill_inputs(mf_format f, int bits)
{
    const uint32_t mask = (1u << bits) - 1u;
    size_t i;
    for (i = 0; i < NV; i++) {
        uint32_t u = rnd32();
        if (i < 2 * 256) /* every code, and its f32 neighbours */
            xs[i] = mf_to_f32(f, (uint32_t)(i / 2) & mask);
        else if (i < 4 * 256)
            xs[i] = nextafterf(mf_to_f32(f, (uint32_t)(i / 2 - 256) & mask), (i & 1) ? INFINITY : -INFINITY);
        else /* random bits near the format's range: exponents of 2^-40 .. 2^40, and everything */
            xs[i] = (i & 1) ? mf_test_bits_f32((u & 0x807FFFFFu) | ((87u + u % 81u) << 23)) : mf_test_bits_f32(u);
        xd[i] = (double)xs[i] * (1.0 + ldexp((double)(rnd32() & 0xFF), -40)); /* off the f32 grid */
        if (!isfinite(xd[i]))
            xd[i] = xs[i];
    }
}

static void add_events(mf_stats *s, unsigned ev)
{
    s->overflow += (ev & MF_EVENT_OVERFLOW) != 0;
    s->underflow += (ev & MF_EVENT_UNDERFLOW) != 0;
    s->subnormal += (ev & MF_EVENT_SUBNORMAL) != 0;
    s->nan += (ev & MF_EVENT_NAN) != 0;
    s->inexact += (ev & MF_EVENT_INEXACT) != 0;
}

static uint32_t load_code(mf_format f, const uint8_t *p, size_t i)
{
    return mf_storage_bytes(f, 2) == 1 ? (p[i >> 1] >> (4 * (i & 1))) & 0xFu : p[i];
}

START_TEST(test_p3109_bulk)
{
    static uint8_t out[NV];
    const mf_format f = (mf_format)_i;
    mf_format_desc d;
    size_t cases = 0;
    int r, o, w;
    ck_assert_int_eq(mf_format_describe(f, &d), MF_OK);
    ck_assert_msg(strncmp(d.name, "binary", 6) == 0, "%s is no P3109 format", d.name);
    fill_inputs(f, d.bits);
    for (w = 0; w < 2; w++)
        for (r = 0; r < MF_ROUND_COUNT; r++)
            for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                mf_stats st, want = {0, 0, 0, 0, 0};
                mf_opts opts;
                size_t i;
                memset(&opts, 0, sizeof opts);
                opts.round = (mf_round)r, opts.overflow = (mf_overflow)o, opts.seed = 1234, opts.sr_offset = 77;
                opts.stats = &st;
                ck_assert_int_eq(mf_convert(f, out, w ? MF_FP64 : MF_FP32, w ? (const void *)xd : (const void *)xs, NV,
                                            &opts),
                                 MF_OK);
                for (i = 0; i < NV; i++) {
                    const uint32_t rb = mf_sr_rbits(opts.seed, opts.sr_offset + i, mf_sr_width(f));
                    unsigned ev = 0;
                    const uint32_t c = w ? mf_from_f64_ev(f, xd[i], opts.round, opts.overflow, rb, &ev)
                                         : mf_from_f32_ev(f, xs[i], opts.round, opts.overflow, rb, &ev);
                    MF_EXPECT(load_code(f, out, i) == c, "%s from %s [%zu] mode %d policy %d: 0x%x, scalar 0x%x", d.name,
                              w ? "f64" : "f32", i, r, o, load_code(f, out, i), c);
                    add_events(&want, ev);
                    cases++;
                }
                ck_assert(memcmp(&st, &want, sizeof st) == 0);
            }
    ck_assert_uint_eq(cases, (size_t)2 * MF_ROUND_COUNT * MF_OVERFLOW_COUNT * NV);
}
END_TEST

/* Pairs without a folded loop: every code of a narrow source into a P3109 format and back, equal to the
 * exact widening to f64 and one rounding (the same value, so the same projection). */
START_TEST(test_p3109_narrow_pairs)
{
    static const struct {
        mf_format d, s;
    } pairs[] = {{MF_BINARY8P4SE, MF_FP8_E4M3},   {MF_BINARY8P3SE, MF_FP8_E5M2}, {MF_BINARY8P4UE, MF_BF16},
                 {MF_FP8_E4M3, MF_BINARY8P4SE},   {MF_FP16, MF_BINARY8P3SE},     {MF_BINARY8P3SE, MF_BINARY8P4SE},
                 {MF_BINARY4P2SF, MF_BINARY8P4SF}, {MF_BINARY8P1UF, MF_E8M0},     {MF_FP4_E2M1, MF_BINARY4P2SF}};
    static uint8_t src[2 * 65536], dst[2 * 65536];
    size_t k, cases = 0;
    for (k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const mf_format s = pairs[k].s, dfmt = pairs[k].d;
        const size_t n = mf_storage_bytes(s, 1) == 2 ? 65536 : 256, sb = mf_storage_bytes(s, 2);
        const unsigned dbits = (unsigned)(mf_storage_bytes(dfmt, 2) * 4);
        int r, o;
        size_t i;
        for (i = 0; i < n; i++) { /* every code of the source, in its layout */
            if (sb == 1)
                src[i >> 1] = (uint8_t)((src[i >> 1] & (0xF0u >> (4 * (i & 1)))) | ((i & 0xFu) << (4 * (i & 1))));
            else if (sb == 2)
                src[i] = (uint8_t)i;
            else
                src[2 * i] = (uint8_t)i, src[2 * i + 1] = (uint8_t)(i >> 8);
        }
        for (r = 0; r < MF_ROUND_COUNT; r++)
            for (o = 0; o < MF_OVERFLOW_COUNT; o++) {
                mf_opts opts;
                memset(&opts, 0, sizeof opts);
                opts.round = (mf_round)r, opts.overflow = (mf_overflow)o, opts.seed = 99;
                ck_assert_int_eq(mf_convert(dfmt, dst, s, src, n, &opts), MF_OK);
                for (i = 0; i < n; i++) {
                    const uint32_t code = sb == 1 ? (uint32_t)(i & 0xFu) : (uint32_t)i;
                    const uint32_t rb = mf_sr_rbits(opts.seed, i, mf_sr_width(dfmt));
                    const uint32_t want = mf_from_f64(dfmt, mf_to_f64(s, code), opts.round, opts.overflow, rb);
                    uint32_t got;
                    if (dbits == 4)
                        got = (dst[i >> 1] >> (4 * (i & 1))) & 0xFu;
                    else if (dbits == 8)
                        got = dst[i];
                    else
                        got = (uint32_t)dst[2 * i] | (uint32_t)dst[2 * i + 1] << 8;
                    MF_EXPECT(got == want, "%s -> %s code 0x%x mode %d policy %d: 0x%x, want 0x%x", mf_format_name(s),
                              mf_format_name(dfmt), code, r, o, got, want);
                    cases++;
                }
            }
    }
    ck_assert_uint_gt(cases, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("p3109");
    TCase *tc = tcase_create("p3109");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_p3109_value_tables, 0, (int)NTABLES);
    tcase_add_test(tc, test_p3109_hand_cases);
    tcase_add_test(tc, test_p3109_stochastic_a);
    tcase_add_loop_test(tc, test_p3109_bulk, MF_BINARY8P1SE, MF_BINARY4P2SF + 1); /* the P3109 rows */
    tcase_add_test(tc, test_p3109_narrow_pairs);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
