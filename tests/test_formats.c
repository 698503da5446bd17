/* SPDX-License-Identifier: MIT */
/* tests/test_formats.c - the table of formats, minifloat/formats.inc, walked row by row (unit tier).
 *
 * The library makes everything about a format from its row. This test checks each row against what the
 * library then says (names, mf_format_describe, array layout, the stochastic width, the storage struct),
 * and against each oracle's own statement of the format: tests/oracle/ref.c, mpfr_ref.c, breakpoints.c
 * and fuzz/ref_slow.h, which share nothing with the table but the names. A row appended without its
 * oracle rows fails here, and so does an oracle row whose format the library lacks.
 */
#include "mf_test.h"
#include <stdio.h>
#include <string.h>

#include <minifloat.h>

#include "oracle/breakpoints.h"
#include "oracle/mpfr_ref.h"
#include "oracle/ref.h"
#include "test_formats.h"

typedef struct {
    mf_format fmt;
    int value;
    const char *tag;
    int bits, man, bias;
    const char *kind, *storage, *dtype, *aliases, *title;
    size_t struct_size; /* sizeof(mf_<tag>_t); 0 for f32 and f64, which have none */
} row;

#define STRUCT_SIZE_F64(tag) 0
#define STRUCT_SIZE_F32(tag) 0
#define STRUCT_SIZE_U16(tag) sizeof(mf_##tag##_t)
#define STRUCT_SIZE_U8(tag) sizeof(mf_##tag##_t)
#define STRUCT_SIZE_U4(tag) sizeof(mf_##tag##_t)

static const row rows[] = {
#define MF__FORMAT(e, value, tag, nbits, nman, nbias, kind, storage, dtype, aliases, title) \
    {e, value, #tag, nbits, nman, nbias, #kind, #storage, dtype, aliases, title, STRUCT_SIZE_##storage(tag)},
#include <minifloat/formats.inc>
#undef MF__FORMAT
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

/* ---- the table and the library ------------------------------------------------------------------- */

START_TEST(test_formats_numbered)
{
    int i;
    ck_assert_int_eq(NROWS, MF_FORMAT_COUNT);
    for (i = 0; i < NROWS; i++) {
        ck_assert_int_eq(rows[i].value, i);
        ck_assert_int_eq((int)rows[i].fmt, i);
    }
    /* the numbers users' code and the exhaustive digests were written against */
    ck_assert_int_eq(MF_FP32, 0);
    ck_assert_int_eq(MF_E8M0, 8);
    ck_assert_int_eq(MF_FP64, 9);
    ck_assert_int_eq(MF_FP8_E3M4, 14);
    ck_assert_ptr_null(mf_format_name((mf_format)MF_FORMAT_COUNT));
    ck_assert_ptr_null(mf_format_dtype((mf_format)MF_FORMAT_COUNT));
}
END_TEST

static int seen_count;
static const char *seen[256];

/* A name of row i: lower case, unique in the table, and mf_format_from_name takes it in any case. */
static void check_name(const char *name, int i)
{
    char upper[64];
    mf_format f;
    size_t k;
    ck_assert_msg(name[0] != '\0' && strlen(name) < sizeof upper, "%s: an empty or overlong name", rows[i].tag);
    for (k = 0; name[k]; k++) {
        const char c = name[k];
        ck_assert_msg((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_', "%s: name \"%s\"", rows[i].tag, name);
        upper[k] = (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    upper[k] = '\0';
    for (k = 0; k < (size_t)seen_count; k++)
        ck_assert_msg(strcmp(seen[k], name) != 0, "%s: the name \"%s\" is taken twice", rows[i].tag, name);
    ck_assert_int_lt(seen_count, (int)(sizeof seen / sizeof seen[0]));
    seen[seen_count++] = name;
    ck_assert_int_eq(mf_format_from_name(name, &f), MF_OK);
    ck_assert_msg((int)f == i, "\"%s\" names %s, not %s", name, mf_format_name(f), rows[i].tag);
    ck_assert_int_eq(mf_format_from_name(upper, &f), MF_OK);
    ck_assert_int_eq((int)f, i);
}

START_TEST(test_formats_names)
{
    static char words[256][64]; /* the aliases, copied: seen[] keeps pointers */
    int i, nw = 0;
    seen_count = 0;
    for (i = 0; i < NROWS; i++) {
        const char *a = rows[i].aliases;
        ck_assert_str_eq(mf_format_name(rows[i].fmt), rows[i].tag);
        check_name(rows[i].tag, i);
        if (rows[i].dtype[0]) {
            ck_assert_str_eq(mf_format_dtype(rows[i].fmt), rows[i].dtype);
            check_name(rows[i].dtype, i);
        } else {
            ck_assert_ptr_null(mf_format_dtype(rows[i].fmt));
        }
        ck_assert_msg(a[0] != ' ' && (a[0] == '\0' || a[strlen(a) - 1] != ' ') && !strstr(a, "  "),
                      "%s: aliases \"%s\" are not single-spaced words", rows[i].tag, a);
        while (*a) {
            size_t n = strcspn(a, " ");
            ck_assert_int_lt(nw, 256);
            ck_assert_uint_lt(n, sizeof words[0]);
            memcpy(words[nw], a, n);
            words[nw][n] = '\0';
            check_name(words[nw++], i);
            a += n + (a[n] == ' ');
        }
        ck_assert_msg(strlen(rows[i].title) > 0, "%s: no title", rows[i].tag);
    }
}
END_TEST

START_TEST(test_formats_describe)
{
    int i;
    for (i = 0; i < NROWS; i++) {
        const row *r = &rows[i];
        const int ieee = strcmp(r->kind, "IEEE") == 0, e8m0 = strcmp(r->kind, "E8M0") == 0;
        const int fnuz = strcmp(r->kind, "FNUZ") == 0, none = strcmp(r->kind, "NONE") == 0;
        /* P3109SE/SF/UE/UF: signed or unsigned, extended (with infinities) or finite */
        const int p3109 = strncmp(r->kind, "P3109", 5) == 0 && strlen(r->kind) == 7;
        const int uns = e8m0 || (p3109 && r->kind[5] == 'U'), ext = ieee || (p3109 && r->kind[6] == 'E');
        mf_format_desc d;
        ck_assert_msg(ieee || e8m0 || fnuz || none || p3109 || strcmp(r->kind, "FN") == 0, "%s: kind %s", r->tag,
                      r->kind);
        ck_assert_msg(!p3109 || (strchr("SU", r->kind[5]) && strchr("EF", r->kind[6])), "%s: kind %s", r->tag, r->kind);
        ck_assert_int_eq(mf_format_describe(r->fmt, &d), MF_OK);
        ck_assert_str_eq(d.name, r->tag);
        ck_assert_str_eq(d.title, r->title);
        ck_assert_int_eq(d.bits, r->bits);
        ck_assert_int_eq(d.man_bits, r->man);
        ck_assert_int_eq(d.bias, r->bias);
        ck_assert_int_eq(d.is_signed, !uns);
        ck_assert_int_eq(d.exp_bits, r->bits - d.is_signed - r->man);
        ck_assert_int_gt(d.exp_bits, 0);
        ck_assert_int_eq(d.has_inf, ext);
        ck_assert_int_eq(d.has_nan, !none);
        ck_assert_int_eq(d.has_zero, !e8m0);
        ck_assert_int_eq(d.has_neg_zero, !uns && !fnuz && !p3109);
        ck_assert_int_eq(d.has_subnormals, !e8m0 && r->man > 0);
        if (p3109) { /* the report's bias: 2^(K-P-1) signed, 2^(K-P) unsigned, P = man + 1 */
            ck_assert_int_eq(d.bias, 1 << (r->bits - (r->man + 1) - !uns));
            ck_assert_uint_eq(d.nan_code, uns ? (1u << r->bits) - 1u : 1u << (r->bits - 1));
        }
    }
}
END_TEST

/* The storage column: one code's C type (the struct), the array layout, and the random bits per element. */
START_TEST(test_formats_storage)
{
    static const struct {
        const char *token;
        int elem_bits;    /* one element in an array */
        size_t code_size; /* sizeof the struct's member; 0: no struct */
    } kinds[] = {{"F64", 64, 0}, {"F32", 32, 0}, {"U16", 16, 2}, {"U8", 8, 1}, {"U4", 4, 1}};
    int i;
    for (i = 0; i < NROWS; i++) {
        const row *r = &rows[i];
        size_t k, n;
        for (k = 0; k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].token, r->storage) != 0; k++)
            ;
        ck_assert_msg(k < sizeof kinds / sizeof kinds[0], "%s: storage %s", r->tag, r->storage);
        ck_assert_int_le(r->bits, kinds[k].elem_bits);
        ck_assert_int_gt(r->bits, kinds[k].elem_bits / 2); /* the narrowest layout that holds a code */
        ck_assert_uint_eq(r->struct_size, kinds[k].code_size);
        for (n = 0; n < 9; n++)
            ck_assert_uint_eq(mf_storage_bytes(r->fmt, n), (n * (size_t)kinds[k].elem_bits + 7) / 8);
        ck_assert_uint_eq(mf_sr_width(r->fmt), r->bits <= 8 ? 8u : r->bits <= 16 ? 16u : 32u);
    }
}
END_TEST

/* ---- the oracles' own statements ------------------------------------------------------------------ */

/* An oracle's name for a format is a tag of the library (an oracle row without its format fails). */
static void names_a_format(const char *name)
{
    mf_format f;
    ck_assert_msg(mf_format_from_name(name, &f) == MF_OK && strcmp(mf_format_name(f), name) == 0,
                  "the oracle's %s is no format of the library", name);
}

/* The library's facts of row i, where the oracles have every format but f64. */
static mf_format_desc lib_facts(int i)
{
    mf_format_desc d;
    ck_assert_int_eq(mf_format_describe(rows[i].fmt, &d), MF_OK);
    return d;
}

START_TEST(test_formats_oracle_ref)
{
    int i;
    for (i = 0; i < NROWS; i++) {
        const mf_format_desc d = lib_facts(i);
        const ref_format rf = ref_format_named(rows[i].tag);
        const ref_info *o;
        if (rows[i].fmt == MF_FP64)
            continue;
        ck_assert_msg(rf != REF_NFORMATS, "%s: no row in tests/oracle/ref.c", rows[i].tag);
        o = ref_format_info(rf);
        ck_assert_int_eq(o->bits, d.bits);
        ck_assert_int_eq(o->exp_bits, d.exp_bits);
        ck_assert_int_eq(o->man_bits, d.man_bits);
        ck_assert_int_eq(o->bias, d.bias);
        ck_assert_int_eq(o->has_inf, d.has_inf);
        ck_assert_int_eq(o->has_nan, d.has_nan);
        ck_assert_int_eq(o->is_signed, d.is_signed);
        ck_assert_uint_eq(o->max_code, d.max_code);
        ck_assert_uint_eq(o->sign_bit, d.is_signed ? 1u << (d.bits - 1) : 0u);
        ck_assert_uint_eq(o->inf_code, d.inf_code);
        ck_assert_uint_eq(o->nan_code, d.nan_code);
        ck_assert_int_eq(o->fnuz, d.is_signed && !d.has_neg_zero);
    }
    for (i = 0; i < REF_NFORMATS; i++)
        names_a_format(ref_format_info((ref_format)i)->name);
}
END_TEST

START_TEST(test_formats_oracle_mpfr)
{
    int i;
    for (i = 0; i < NROWS; i++) {
        const mf_format_desc d = lib_facts(i);
        const ref_format rf = ref_format_named(rows[i].tag);
        mpfr_ref_format o;
        if (rows[i].fmt == MF_FP64)
            continue;
        ck_assert_msg(mpfr_ref_format_facts(rf, &o), "%s: no row in tests/oracle/mpfr_ref.c", rows[i].tag);
        ck_assert_int_eq(o.man, d.man_bits);
        ck_assert_int_eq(o.bias, d.bias);
        ck_assert_msg(o.max == d.max, "%s: max %a, the library's %a", rows[i].tag, o.max, d.max);
        ck_assert_uint_eq(o.max_code, d.max_code);
        ck_assert_uint_eq(o.sign_bit, d.is_signed ? 1u << (d.bits - 1) : 0u);
        ck_assert_uint_eq(o.inf_code, d.inf_code);
        ck_assert_uint_eq(o.nan_code, d.nan_code);
        ck_assert_int_eq(o.has_inf, d.has_inf);
        ck_assert_int_eq(o.is_signed, d.is_signed);
        ck_assert_int_eq(o.fnuz, d.is_signed && !d.has_neg_zero);
    }
}
END_TEST

/* The breakpoint oracle serves the narrow formats: every row but f32 and f64. */
START_TEST(test_formats_oracle_breakpoints)
{
    static const char *const kinds[] = {[MFO_KIND_IEEE] = "IEEE", [MFO_KIND_FN] = "FN", [MFO_KIND_NONE] = "NONE",
                                        [MFO_KIND_E8M0] = "E8M0", [MFO_KIND_FNUZ] = "FNUZ",
                                        [MFO_KIND_P3109SE] = "P3109SE", [MFO_KIND_P3109SF] = "P3109SF",
                                        [MFO_KIND_P3109UE] = "P3109UE", [MFO_KIND_P3109UF] = "P3109UF"};
    int i;
    for (i = 0; i < NROWS; i++) {
        const mf_format_desc d = lib_facts(i);
        const mfo_fmt *o = mfo_format(rows[i].tag);
        if (rows[i].fmt == MF_FP32 || rows[i].fmt == MF_FP64) {
            ck_assert_ptr_null(o);
            continue;
        }
        ck_assert_msg(o != NULL, "%s: no row in tests/oracle/breakpoints.c", rows[i].tag);
        ck_assert_uint_lt(o->kind, sizeof kinds / sizeof kinds[0]);
        ck_assert_int_eq(o->bits, d.bits);
        ck_assert_int_eq(o->ebits, d.exp_bits);
        ck_assert_int_eq(o->mbits, d.man_bits);
        ck_assert_int_eq(o->bias, d.bias);
        ck_assert_str_eq(kinds[o->kind], rows[i].kind);
        ck_assert_uint_eq(mfo_max_code(o), d.max_code);
        ck_assert_uint_eq(mfo_sign_bit(o), d.is_signed ? 1u << (d.bits - 1) : 0u);
        ck_assert_uint_eq(mfo_nan_result(o), d.nan_code);
    }
    for (i = 0; mfo_format_at((size_t)i); i++)
        names_a_format(mfo_format_at((size_t)i)->tag);
}
END_TEST

START_TEST(test_formats_oracle_fuzz)
{
    slow_ref_facts o;
    int i, j;
    for (i = 0; i < NROWS; i++) {
        const mf_format_desc d = lib_facts(i);
        if (rows[i].fmt == MF_FP64)
            continue;
        for (j = 0; slow_ref_row(j, &o) && strcmp(o.name, rows[i].tag) != 0; j++)
            ;
        ck_assert_msg(j < slow_ref_count(), "%s: no row in fuzz/ref_slow.h", rows[i].tag);
        ck_assert_int_eq(o.bits, d.bits);
        ck_assert_int_eq(o.ebits, d.exp_bits);
        ck_assert_int_eq(o.mbits, d.man_bits);
        ck_assert_int_eq(o.bias, d.bias);
        ck_assert_str_eq(o.kind, rows[i].kind);
    }
    for (j = 0; slow_ref_row(j, &o); j++)
        names_a_format(o.name);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, test_formats_numbered);
    tcase_add_test(tc, test_formats_names);
    tcase_add_test(tc, test_formats_describe);
    tcase_add_test(tc, test_formats_storage);
    tcase_add_test(tc, test_formats_oracle_ref);
    tcase_add_test(tc, test_formats_oracle_mpfr);
    tcase_add_test(tc, test_formats_oracle_breakpoints);
    tcase_add_test(tc, test_formats_oracle_fuzz);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}
