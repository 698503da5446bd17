/* SPDX-License-Identifier: MIT */
/* tests/test_vectors.c - hand-checked vector files (unit tier).
 *
 * tests/vectors/<topic>.csv: src_format,input,dst_format,mode,policy,rbits,expected_code,why
 * (input: a hex-float or decimal for strtod, inf, -inf, or bits:0x... for a raw source bit pattern;
 * f32 inputs must be exact f32 values). Every row is checked through mf_from_f32 / mf_from_f64, the
 * named function (mf_f32_to_e4m3_rn_sat, ...) where there is one, and the textbook reference.
 * tests/vectors/decode.csv: format,code,expected_value,expected_f32_bits,expected_f64_bits,why.
 */
#include "mf_test.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#include "oracle/ref.h"

#ifndef MF_VECTOR_DIR
#error "MF_VECTOR_DIR must name the directory of the vector files"
#endif

/* ---- names ------------------------------------------------------------------------------------ */
static const struct {
    const char *name;
    mf_format m;
    ref_format r;
} fmt_names[] = {{"f32", MF_FP32, REF_F32},        {"f16", MF_FP16, REF_F16},       {"bf16", MF_BF16, REF_BF16},
                 {"e4m3", MF_FP8_E4M3, REF_E4M3}, {"e5m2", MF_FP8_E5M2, REF_E5M2}, {"e2m3", MF_FP6_E2M3, REF_E2M3},
                 {"e3m2", MF_FP6_E3M2, REF_E3M2}, {"e2m1", MF_FP4_E2M1, REF_E2M1}, {"e8m0", MF_E8M0, REF_E8M0},
                 {"e4m3fnuz", MF_FP8_E4M3FNUZ, REF_E4M3FNUZ}, {"e5m2fnuz", MF_FP8_E5M2FNUZ, REF_E5M2FNUZ},
                 {"e4m3b11fnuz", MF_FP8_E4M3B11FNUZ, REF_E4M3B11FNUZ}, {"e4m3ieee", MF_FP8_E4M3IEEE, REF_E4M3IEEE},
                 {"e3m4", MF_FP8_E3M4, REF_E3M4}, {"f64", MF_FP64, REF_NFORMATS}};
static const char *mode_names[REF_NMODES] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr"};
static const mf_round mf_modes[REF_NMODES] = {MF_ROUND_NEAREST_EVEN, MF_ROUND_NEAREST_AWAY, MF_ROUND_TOWARD_ZERO,
                                              MF_ROUND_UP, MF_ROUND_DOWN, MF_ROUND_ODD, MF_ROUND_STOCHASTIC};

static int find_fmt(const char *s)
{
    size_t i;
    for (i = 0; i < sizeof fmt_names / sizeof fmt_names[0]; i++)
        if (strcmp(s, fmt_names[i].name) == 0)
            return (int)i;
    return -1;
}

static int find_mode(const char *s)
{
    int i;
    for (i = 0; i < REF_NMODES; i++)
        if (strcmp(s, mode_names[i]) == 0)
            return i;
    return -1;
}

/* ---- the named functions, as (float|double, rbits) -> code ------------------------------------ */
typedef uint32_t (*fn32)(float, uint32_t);
typedef uint32_t (*fn64)(double, uint32_t);

#define W1(tag, rnd)                                                                                    \
    static uint32_t w32_##tag##_##rnd(float x, uint32_t r) { return (void)r, mf_f32_to_##tag##_##rnd(x).bits; } \
    static uint32_t w32s_##tag##_##rnd(float x, uint32_t r) { return (void)r, mf_f32_to_##tag##_##rnd##_sat(x).bits; } \
    static uint32_t w64_##tag##_##rnd(double x, uint32_t r) { return (void)r, mf_f64_to_##tag##_##rnd(x).bits; } \
    static uint32_t w64s_##tag##_##rnd(double x, uint32_t r) { return (void)r, mf_f64_to_##tag##_##rnd##_sat(x).bits; }
#define WSR(tag)                                                                                        \
    static uint32_t w32_##tag##_sr(float x, uint32_t r) { return mf_f32_to_##tag##_sr(x, r).bits; }     \
    static uint32_t w32s_##tag##_sr(float x, uint32_t r) { return mf_f32_to_##tag##_sr_sat(x, r).bits; } \
    static uint32_t w64_##tag##_sr(double x, uint32_t r) { return mf_f64_to_##tag##_sr(x, r).bits; }    \
    static uint32_t w64s_##tag##_sr(double x, uint32_t r) { return mf_f64_to_##tag##_sr_sat(x, r).bits; }
#define WDEC(tag)                                                                                        \
    static float d32_##tag(uint32_t c) { return mf_##tag##_to_f32(mf_##tag##_from_bits(c)); }          \
    static double d64_##tag(uint32_t c) { return mf_##tag##_to_f64(mf_##tag##_from_bits(c)); }
#define WALL(tag) W1(tag, rn) W1(tag, rna) W1(tag, rz) W1(tag, ru) W1(tag, rd) W1(tag, ro) WSR(tag)

/* the 16-bit accessors take uint16_t, the others uint8_t: cast through the storage type */
#define WDEC16(tag)                                                                                      \
    static float d32_##tag(uint32_t c) { return mf_##tag##_to_f32(mf_##tag##_from_bits((uint16_t)c)); } \
    static double d64_##tag(uint32_t c) { return mf_##tag##_to_f64(mf_##tag##_from_bits((uint16_t)c)); }
#define WDEC8(tag)                                                                                       \
    static float d32_##tag(uint32_t c) { return mf_##tag##_to_f32(mf_##tag##_from_bits((uint8_t)c)); }  \
    static double d64_##tag(uint32_t c) { return mf_##tag##_to_f64(mf_##tag##_from_bits((uint8_t)c)); }

WALL(f16) WALL(bf16) WALL(e4m3) WALL(e5m2) WALL(e2m3) WALL(e3m2) WALL(e2m1) WALL(e8m0)
WALL(e4m3fnuz) WALL(e5m2fnuz) WALL(e4m3b11fnuz) WALL(e4m3ieee) WALL(e3m4)
WDEC16(f16) WDEC16(bf16) WDEC8(e4m3) WDEC8(e5m2) WDEC8(e2m3) WDEC8(e3m2) WDEC8(e2m1) WDEC8(e8m0)
WDEC8(e4m3fnuz) WDEC8(e5m2fnuz) WDEC8(e4m3b11fnuz) WDEC8(e4m3ieee) WDEC8(e3m4)

typedef struct {
    mf_format f;
    fn32 f32[REF_NMODES][2]; /* [mode][saturate] */
    fn64 f64[REF_NMODES][2];
    float (*dec32)(uint32_t);
    double (*dec64)(uint32_t);
} named;

#define NM(tag, rnd) {w32_##tag##_##rnd, w32s_##tag##_##rnd}
#define NM64(tag, rnd) {w64_##tag##_##rnd, w64s_##tag##_##rnd}
#define NAMED(tag, F)                                                                                     \
    {F,                                                                                                   \
     {NM(tag, rn), NM(tag, rna), NM(tag, rz), NM(tag, ru), NM(tag, rd), NM(tag, ro), NM(tag, sr)},        \
     {NM64(tag, rn), NM64(tag, rna), NM64(tag, rz), NM64(tag, ru), NM64(tag, rd), NM64(tag, ro), NM64(tag, sr)}, \
     d32_##tag, d64_##tag}

static const named named_fns[] = {NAMED(f16, MF_FP16),       NAMED(bf16, MF_BF16),      NAMED(e4m3, MF_FP8_E4M3),
                                  NAMED(e5m2, MF_FP8_E5M2),  NAMED(e2m3, MF_FP6_E2M3),  NAMED(e3m2, MF_FP6_E3M2),
                                  NAMED(e2m1, MF_FP4_E2M1),  NAMED(e8m0, MF_E8M0),
                                  NAMED(e4m3fnuz, MF_FP8_E4M3FNUZ), NAMED(e5m2fnuz, MF_FP8_E5M2FNUZ),
                                  NAMED(e4m3b11fnuz, MF_FP8_E4M3B11FNUZ), NAMED(e4m3ieee, MF_FP8_E4M3IEEE),
                                  NAMED(e3m4, MF_FP8_E3M4)};

static const named *find_named(mf_format f)
{
    size_t i;
    for (i = 0; i < sizeof named_fns / sizeof named_fns[0]; i++)
        if (named_fns[i].f == f)
            return &named_fns[i];
    return NULL;
}

/* ---- parsing ---------------------------------------------------------------------------------- */
#define MAXF 8

/* Splits line into at most n fields at commas; the last field takes the rest of the line. */
static int split(char *line, char **fields, int n)
{
    int k = 0;
    char *p = line, *nl = strpbrk(line, "\r\n");
    if (nl)
        *nl = 0;
    while (k < n - 1) {
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        fields[k++] = p;
        p = c + 1;
    }
    fields[k++] = p;
    return k;
}

static int blank_or_comment(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return *line == '#' || *line == 0 || *line == '\n' || *line == '\r';
}

static uint64_t parse_hex(const char *s, const char *what, const char *where)
{
    char *end;
    uint64_t v;
    errno = 0;
    v = strtoull(s, &end, 16);
    MF_EXPECT(*s && *end == 0 && errno == 0, "%s: bad hex %s '%s'", where, what, s);
    return v;
}

static double parse_real(const char *s, const char *where)
{
    char *end;
    double d = strtod(s, &end);
    MF_EXPECT(*s && *end == 0, "%s: bad number '%s'", where, s);
    return d;
}

static FILE *open_vec(const char *name)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", MF_VECTOR_DIR, name);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    return f;
}

static const char *header_round = "src_format,input,dst_format,mode,policy,rbits,expected_code,why";
static const char *header_decode = "format,code,expected_value,expected_f32_bits,expected_f64_bits,why";

/* Checks every row of a rounding file; returns the number of rows. */
static size_t run_round_file(const char *name)
{
    FILE *fp = open_vec(name);
    char line[2048], where[256];
    size_t rows = 0, lineno = 0;
    int seen_header = 0;
    while (fgets(line, sizeof line, fp)) {
        char *f[MAXF];
        int src, dst, mode, sat;
        uint32_t rbits, want, got, ref;
        double xd;
        float xf = 0;
        int is64;
        lineno++;
        if (blank_or_comment(line))
            continue;
        if (!seen_header) {
            line[strcspn(line, "\r\n")] = 0;
            ck_assert_str_eq(line, header_round);
            seen_header = 1;
            continue;
        }
        snprintf(where, sizeof where, "%s:%zu", name, lineno);
        ck_assert_msg(split(line, f, MAXF) == 8, "%s: expected 8 fields", where);
        src = find_fmt(f[0]);
        dst = find_fmt(f[2]);
        mode = find_mode(f[3]);
        ck_assert_msg(src >= 0 && (fmt_names[src].m == MF_FP32 || fmt_names[src].m == MF_FP64), "%s: src '%s'",
                      where, f[0]);
        ck_assert_msg(dst >= 0 && fmt_names[dst].m != MF_FP64, "%s: dst '%s'", where, f[2]);
        ck_assert_msg(mode >= 0, "%s: mode '%s'", where, f[3]);
        ck_assert_msg(strcmp(f[4], "ieee") == 0 || strcmp(f[4], "sat") == 0, "%s: policy '%s'", where, f[4]);
        sat = strcmp(f[4], "sat") == 0;
        rbits = (uint32_t)parse_hex(f[5], "rbits", where);
        want = (uint32_t)parse_hex(f[6], "expected_code", where);
        ck_assert_msg(strlen(f[7]) > 0, "%s: the why column is empty", where);
        is64 = fmt_names[src].m == MF_FP64;
        if (strncmp(f[1], "bits:", 5) == 0) {
            uint64_t b = parse_hex(f[1] + 5, "bits", where);
            if (is64) {
                xd = mf_test_bits_f64(b);
            } else {
                ck_assert_msg(b <= 0xFFFFFFFFu, "%s: f32 bits too wide", where);
                xf = mf_test_bits_f32((uint32_t)b);
                xd = xf;
            }
        } else {
            xd = parse_real(f[1], where);
            if (!is64) {
                xf = (float)xd;
                ck_assert_msg((double)xf == xd || (isnan(xd) && isnan(xf)), "%s: '%s' is not an exact f32", where,
                              f[1]);
            }
        }
        /* the generic contract */
        if (is64)
            got = mf_from_f64(fmt_names[dst].m, xd, mf_modes[mode], sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE,
                              rbits);
        else
            got = mf_from_f32(fmt_names[dst].m, xf, mf_modes[mode], sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE,
                              rbits);
        MF_EXPECT(got == want, "%s: %s %s -> %s %s %s rbits 0x%x: got 0x%x want 0x%x (%s)", where, f[0], f[1], f[2],
                  f[3], f[4], rbits, got, want, f[7]);
        /* the named function */
        {
            const named *nf = find_named(fmt_names[dst].m);
            if (nf) {
                uint32_t g2 = is64 ? nf->f64[mode][sat](xd, rbits) : nf->f32[mode][sat](xf, rbits);
                MF_EXPECT(g2 == want, "%s: named mf_%s_to_%s_%s%s: got 0x%x want 0x%x", where, f[0], f[2], f[3],
                          sat ? "_sat" : "", g2, want);
            }
        }
        /* the textbook reference agrees with the hand-worked value (f32 -> f32 is no rounding: skip) */
        if (!(fmt_names[dst].m == MF_FP32 && !is64)) {
            ref = ref_round(fmt_names[dst].r, xd, mode, sat, rbits, NULL);
            MF_EXPECT(ref == want, "%s: the reference gives 0x%x, the file 0x%x", where, ref, want);
        }
        rows++;
    }
    fclose(fp);
    ck_assert_msg(seen_header, "%s: no header", name);
    return rows;
}

static size_t run_decode_file(const char *name)
{
    FILE *fp = open_vec(name);
    char line[2048], where[256];
    size_t rows = 0, lineno = 0;
    int seen_header = 0;
    while (fgets(line, sizeof line, fp)) {
        char *f[MAXF];
        int k;
        uint32_t code;
        float g32;
        double g64, want;
        int want_nan;
        const named *nf;
        lineno++;
        if (blank_or_comment(line))
            continue;
        if (!seen_header) {
            line[strcspn(line, "\r\n")] = 0;
            ck_assert_str_eq(line, header_decode);
            seen_header = 1;
            continue;
        }
        snprintf(where, sizeof where, "%s:%zu", name, lineno);
        ck_assert_msg(split(line, f, 6) == 6, "%s: expected 6 fields", where);
        k = find_fmt(f[0]);
        ck_assert_msg(k >= 0 && fmt_names[k].m != MF_FP64, "%s: format '%s'", where, f[0]);
        code = (uint32_t)parse_hex(f[1], "code", where);
        want_nan = strcmp(f[2], "nan") == 0;
        want = want_nan ? NAN : parse_real(f[2], where);
        g32 = mf_to_f32(fmt_names[k].m, code);
        g64 = mf_to_f64(fmt_names[k].m, code);
        if (want_nan) {
            MF_EXPECT(isnan(g32) && isnan(g64), "%s: %s 0x%x should decode to NaN", where, f[0], code);
            ck_assert_msg(strcmp(f[3], "-") != 0 && strcmp(f[4], "-") != 0, "%s: NaN rows need both bit columns",
                          where);
        } else {
            /* exact, sign of zero included */
            MF_EXPECT((double)g32 == want && !signbit(g32) == !signbit(want), "%s: f32 %a want %a", where, (double)g32,
                      want);
            MF_EXPECT(g64 == want && !signbit(g64) == !signbit(want), "%s: f64 %a want %a", where, g64, want);
            /* the oracle agrees */
            MF_EXPECT(ref_decode(fmt_names[k].r, code) == want, "%s: ref_decode %a", where,
                      ref_decode(fmt_names[k].r, code));
        }
        if (strcmp(f[3], "-") != 0)
            MF_EXPECT(mf_test_f32_bits(g32) == (uint32_t)parse_hex(f[3], "f32 bits", where),
                      "%s: f32 bits 0x%08x want %s", where, mf_test_f32_bits(g32), f[3]);
        if (strcmp(f[4], "-") != 0)
            MF_EXPECT(mf_test_f64_bits(g64) == parse_hex(f[4], "f64 bits", where), "%s: f64 bits 0x%016llx want %s",
                      where, (unsigned long long)mf_test_f64_bits(g64), f[4]);
        nf = find_named(fmt_names[k].m);
        if (nf) { /* mf_<tag>_to_f32 / _to_f64 give the same bits */
            MF_EXPECT(mf_test_f32_bits(nf->dec32(code)) == mf_test_f32_bits(g32), "%s: named _to_f32 differs", where);
            MF_EXPECT(mf_test_f64_bits(nf->dec64(code)) == mf_test_f64_bits(g64), "%s: named _to_f64 differs", where);
        }
        ck_assert_msg(strlen(f[5]) > 0, "%s: the why column is empty", where);
        rows++;
    }
    fclose(fp);
    ck_assert_msg(seen_header, "%s: no header", name);
    return rows;
}

/* Each file with the number of rows it holds (a parse that skipped rows must not pass). */
static const struct {
    const char *file;
    size_t rows;
} round_files[] = {{"nearest.csv", 74},  {"overflow.csv", 86}, {"specials.csv", 57}, {"stochastic.csv", 39},
                   {"odd.csv", 32},      {"f64.csv", 69},      {"e8m0.csv", 77},     {"fp8_fnuz_ieee.csv", 82}};
#define N_ROUND_FILES (sizeof round_files / sizeof round_files[0])
#define DECODE_ROWS 92

START_TEST(test_round_vectors)
{
    size_t rows = run_round_file(round_files[_i].file);
    printf("%-16s %3zu rows\n", round_files[_i].file, rows);
    ck_assert_uint_eq(rows, round_files[_i].rows);
}
END_TEST

START_TEST(test_decode_vectors)
{
    size_t rows = run_decode_file("decode.csv");
    printf("%-16s %3zu rows\n", "decode.csv", rows);
    ck_assert_uint_eq(rows, DECODE_ROWS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vectors");
    TCase *tc = tcase_create("vectors");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_round_vectors, 0, (int)N_ROUND_FILES);
    tcase_add_test(tc, test_decode_vectors);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
