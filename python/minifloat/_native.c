/* SPDX-License-Identifier: MIT */
/* minifloat._native: the hot calls of the Python package (convert, amax, unscale_, the FP8 casts, the block
 * quantizers and dequantizers, gemm) as a CPython extension over the buffer protocol, so a call costs a few
 * hundred nanoseconds instead of ctypes' microseconds.
 *
 * The Python modules check every argument and name the offending one (minifloat/_core.py); this module takes
 * what they resolved (format and option enum values, contiguous buffers, the element count) and runs the C call
 * with the GIL released. It uses the buffer protocol only, no numpy C API, so it builds without numpy and works
 * with every numpy version. Buffers are requested without PyBUF_FORMAT: numpy cannot describe ml_dtypes' dtypes
 * in a format string but hands out their bytes.
 *
 * Arrays hold one code per element (numpy's layout); the C library packs e2m1 two per byte, so e2m1 goes
 * through a packed scratch buffer here. Negative results are the library's MF_E_* status, returned to Python,
 * which raises minifloat.Error with the context it knows. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>

#define MAX_FORMATS 64

/* Per format: bytes of one element in a numpy array, and whether the C layout packs two codes per byte. */
static Py_ssize_t elem_bytes[MAX_FORMATS];
static int packed_fmt[MAX_FORMATS];
static unsigned high_bits[MAX_FORMATS]; /* the bits a code of a sub-byte format must leave clear (e2m1 0xF0) */
static int n_formats;

static int init_formats(void) {
    for (int f = 0; f < MAX_FORMATS; f++) {
        mf_format_desc d;
        if (mf_format_name((mf_format)f) == NULL || mf_format_describe((mf_format)f, &d) != MF_OK)
            break;
        elem_bytes[f] = (d.bits + 7) / 8;
        packed_fmt[f] = mf_storage_bytes((mf_format)f, 2) == 1;
        high_bits[f] = d.bits < 8 ? 0xFFu & ~((1u << d.bits) - 1u) : 0u;
        n_formats = f + 1;
    }
    return n_formats > 0 ? 0 : -1;
}

static int format_arg(PyObject *o, int *fmt) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v >= n_formats) {
        PyErr_Format(PyExc_ValueError, "minifloat._native: format value %ld out of range", v);
        return -1;
    }
    *fmt = (int)v;
    return 0;
}

static int size_arg(PyObject *o, size_t *n) {
    Py_ssize_t v = PyLong_AsSsize_t(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0) {
        PyErr_SetString(PyExc_ValueError, "minifloat._native: negative element count");
        return -1;
    }
    *n = (size_t)v;
    return 0;
}

static int int_arg(PyObject *o, int *out) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < INT32_MIN || v > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "minifloat._native: int argument out of range");
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int u64_arg(PyObject *o, uint64_t *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int float_arg(PyObject *o, float *out) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred())
        return -1;
    *out = (float)v;
    return 0;
}

/* A C-contiguous buffer of at least n elements of fmt (numpy layout); writable when asked. */
static int get_array(PyObject *o, Py_buffer *view, int fmt, size_t n, int writable) {
    if (PyObject_GetBuffer(o, view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0)
        return -1;
    if ((size_t)view->len / (size_t)elem_bytes[fmt] < n) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "minifloat._native: buffer shorter than the element count");
        return -1;
    }
    return 0;
}

static int check_nargs(Py_ssize_t nargs, Py_ssize_t want, const char *name) {
    if (nargs == want)
        return 0;
    PyErr_Format(PyExc_TypeError, "minifloat._native.%s takes %zd arguments (%zd given)", name, want, nargs);
    return -1;
}

/* ---- e2m1: one code per byte <-> two per byte -------------------------------------------------------- */

/* Packs n codes; returns the OR of all of them, so the caller sees a code wider than 4 bits in the same pass. */
static unsigned pack_nibbles(uint8_t *dst, const uint8_t *src, size_t n) {
    size_t i = 0;
    unsigned any = 0;
    for (; i + 1 < n; i += 2) {
        any |= (unsigned)(src[i] | src[i + 1]);
        dst[i / 2] = (uint8_t)((src[i] & 0x0F) | (src[i + 1] << 4));
    }
    if (i < n) {
        any |= src[i];
        dst[i / 2] = (uint8_t)(src[i] & 0x0F);
    }
    return any;
}

/* The OR of n bytes (a code wider than its format's width is the rare error: one branch-free pass). */
static unsigned or_bytes(const uint8_t *c, size_t n) {
    unsigned any = 0;
    for (size_t i = 0; i < n; i++)
        any |= c[i];
    return any;
}

static void unpack_nibbles(uint8_t *dst, const uint8_t *src, size_t n) {
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        dst[i] = (uint8_t)(src[i / 2] & 0x0F);
        dst[i + 1] = (uint8_t)(src[i / 2] >> 4);
    }
    if (i < n)
        dst[i] = (uint8_t)(src[i / 2] & 0x0F);
}

/* Scratch for a packed operand: on the stack for short arrays (the one-element call), else on the heap. */
typedef struct {
    uint8_t small[512];
    uint8_t *p;
} scratch;

static void *scratch_get(scratch *s, size_t bytes) {
    s->p = bytes <= sizeof s->small ? s->small : (uint8_t *)malloc(bytes ? bytes : 1);
    return s->p;
}

static void scratch_free(scratch *s) {
    if (s->p != s->small)
        free(s->p);
}

/* The C-layout pointers of a call whose operands may be e2m1: src packed into scratch before the call, dst
 * written into scratch and unpacked after it. */
typedef struct {
    scratch ss, ds;
    const void *src;
    void *dst;
    int src_packed, dst_packed;
} layout;

/* Returns 0, -1 when the scratch cannot be allocated, or BAD_CODE when a source code is wider than its format
 * (the C library would ignore the high bits; the binding refuses them). */
#define BAD_CODE 1
static int layout_begin(layout *l, int dst_fmt, void *dst, int src_fmt, const void *src, size_t n) {
    l->src = src;
    l->dst = dst;
    l->ss.p = l->ds.p = NULL;
    l->src_packed = packed_fmt[src_fmt];
    l->dst_packed = packed_fmt[dst_fmt];
    if (l->src_packed) {
        uint8_t *p = (uint8_t *)scratch_get(&l->ss, n / 2 + 1);
        if (p == NULL)
            return -1;
        if (pack_nibbles(p, (const uint8_t *)src, n) & high_bits[src_fmt])
            return BAD_CODE;
        l->src = p;
    } else if (high_bits[src_fmt] && (or_bytes((const uint8_t *)src, n) & high_bits[src_fmt])) {
        return BAD_CODE;
    }
    if (l->dst_packed) {
        uint8_t *p = (uint8_t *)scratch_get(&l->ds, n / 2 + 1);
        if (p == NULL)
            return -1;
        l->dst = p;
    }
    return 0;
}

static void layout_end(layout *l, void *dst, size_t n, int rc) {
    if (l->dst_packed && rc == MF_OK)
        unpack_nibbles((uint8_t *)dst, (const uint8_t *)l->dst, n);
    if (l->src_packed && l->ss.p)
        scratch_free(&l->ss);
    if (l->dst_packed && l->ds.p)
        scratch_free(&l->ds);
}

/* The operands every array-to-array call starts with: (dst_fmt, dst, src_fmt, src, n, ...). */
typedef struct {
    int dst_fmt, src_fmt;
    size_t n;
    Py_buffer dv, sv;
} pair;

static int pair_begin(pair *p, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *name) {
    if (check_nargs(nargs, want, name) < 0 || format_arg(args[0], &p->dst_fmt) < 0 ||
        format_arg(args[2], &p->src_fmt) < 0 || size_arg(args[4], &p->n) < 0)
        return -1;
    if (get_array(args[1], &p->dv, p->dst_fmt, p->n, 1) < 0)
        return -1;
    if (get_array(args[3], &p->sv, p->src_fmt, p->n, 0) < 0) {
        PyBuffer_Release(&p->dv);
        return -1;
    }
    return 0;
}

static void pair_end(pair *p) {
    PyBuffer_Release(&p->sv);
    PyBuffer_Release(&p->dv);
}

/* ---- convert ------------------------------------------------------------------------------------------ */

static PyObject *stats_tuple(int rc, const mf_stats *st) {
    return Py_BuildValue("(iKKKKK)", rc, (unsigned long long)st->overflow, (unsigned long long)st->underflow,
                         (unsigned long long)st->subnormal, (unsigned long long)st->nan,
                         (unsigned long long)st->inexact);
}

/* convert(dst_fmt, dst, src_fmt, src, n, round, overflow, seed, sr_offset, threads, profile, stats)
 * -> status, or (status, overflow, underflow, subnormal, nan, inexact) when stats is true. The status is
 * mf_convert's, or BAD_CODE (1) when a code of a sub-byte source format has bits above its width; nothing is
 * written then either. */
static PyObject *py_convert(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int round, overflow, profile, want_stats, rc;
    mf_opts o;
    mf_stats st;
    pair p;
    memset(&o, 0, sizeof o);
    memset(&st, 0, sizeof st);
    if (check_nargs(nargs, 12, "convert") < 0 || int_arg(args[5], &round) < 0 || int_arg(args[6], &overflow) < 0 ||
        u64_arg(args[7], &o.seed) < 0 || u64_arg(args[8], &o.sr_offset) < 0 || int_arg(args[9], &o.threads) < 0 ||
        int_arg(args[10], &profile) < 0 || (want_stats = PyObject_IsTrue(args[11])) < 0 ||
        pair_begin(&p, args, nargs, 12, "convert") < 0)
        return NULL;
    o.round = (mf_round)round;
    o.overflow = (mf_overflow)overflow;
    o.profile = (mf_profile)profile;
    o.stats = want_stats ? &st : NULL;
    layout l;
    Py_BEGIN_ALLOW_THREADS
    rc = layout_begin(&l, p.dst_fmt, p.dv.buf, p.src_fmt, p.sv.buf, p.n);
    if (rc == 0)
        rc = mf_convert((mf_format)p.dst_fmt, l.dst, (mf_format)p.src_fmt, l.src, p.n, &o);
    else if (rc < 0)
        rc = MF_E_NOMEM;
    layout_end(&l, p.dv.buf, p.n, rc);
    Py_END_ALLOW_THREADS
    pair_end(&p);
    return want_stats ? stats_tuple(rc, &st) : PyLong_FromLong(rc);
}

/* ---- convert's fast path: the whole call in C ------------------------------------------------------------
 * A one-element call spent most of its microsecond in the Python wrapper's argument checks (python/bench). The
 * common call (an ndarray of a dtype the package knows, a format name it knows, keyword values of the exact
 * types the defaults have, no src= or stats, out= an ndarray the wrapper would accept) runs here from start to
 * finish; any other call, and any call the C library refuses, returns NotImplemented and the wrapper runs as
 * before, checking every argument and naming the one at fault. So this path adds no rule of its own: it takes
 * the wrapper's tables (fast_setup). */
static PyObject *fast_ndarray;  /* numpy.ndarray */
static PyObject *fast_empty;    /* numpy.empty */
static PyObject *fast_src;      /* dtype -> format value: the dtypes whose format needs no src= */
static PyObject *fast_dst;      /* name or dtype -> (format value, result dtype, code dtype) */
static PyObject *fast_rounds;   /* name -> mode value */
static PyObject *fast_profiles; /* name -> profile value */
static PyObject *str_shape, *str_dtype;

/* Below this many elements the call keeps the GIL: releasing and taking it back costs more than the work. */
enum { FAST_GIL_MIN = 16384 };

/* fast_setup(ndarray, empty, src_formats, dst_formats, rounds, profiles) */
static PyObject *py_fast_setup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs(nargs, 6, "fast_setup") < 0)
        return NULL;
    for (int i = 2; i < 6; i++)
        if (!PyDict_Check(args[i])) {
            PyErr_SetString(PyExc_TypeError, "minifloat._native.fast_setup: tables must be dicts");
            return NULL;
        }
    PyObject **slots[6] = {&fast_ndarray, &fast_empty, &fast_src, &fast_dst, &fast_rounds, &fast_profiles};
    for (int i = 0; i < 6; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*slots[i], args[i]);
    }
    if (str_shape == NULL && (str_shape = PyUnicode_InternFromString("shape")) == NULL)
        return NULL;
    if (str_dtype == NULL && (str_dtype = PyUnicode_InternFromString("dtype")) == NULL)
        return NULL;
    Py_RETURN_NONE;
}

/* The small non-negative int in a table, or -1 (absent, or not an exact str key where a name is wanted). */
static long fast_lookup(PyObject *table, PyObject *key) {
    PyObject *v = PyUnicode_CheckExact(key) ? PyDict_GetItemWithError(table, key) : NULL;
    return v != NULL && PyLong_CheckExact(v) ? PyLong_AsLong(v) : -1;
}

/* An exact int in [0, 2^64) into *out; 0 for anything else (the wrapper then checks it) */
static int fast_u64(PyObject *o, uint64_t *out) {
    if (!PyLong_CheckExact(o))
        return 0;
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = (uint64_t)v;
    return 1;
}

/* Is out an array the wrapper accepts for a result of x's shape in dst's format (out_arg in _core.py: an ndarray of
 * the format's array or code dtype and x's shape; C-contiguous and writable are the buffer's to check)? -1: error */
static int fast_out_ok(PyObject *out, PyObject *x, PyObject *dst) {
    PyObject *dt, *xs, *os;
    int ok;
    if ((PyObject *)Py_TYPE(out) != fast_ndarray)
        return 0;
    if ((dt = PyObject_GetAttr(out, str_dtype)) == NULL)
        return -1;
    ok = PyObject_RichCompareBool(dt, PyTuple_GET_ITEM(dst, 1), Py_EQ);
    if (ok == 0)
        ok = PyObject_RichCompareBool(dt, PyTuple_GET_ITEM(dst, 2), Py_EQ);
    Py_DECREF(dt);
    if (ok != 1)
        return ok;
    if ((xs = PyObject_GetAttr(x, str_shape)) == NULL)
        return -1;
    if ((os = PyObject_GetAttr(out, str_shape)) == NULL) {
        Py_DECREF(xs);
        return -1;
    }
    ok = PyObject_RichCompareBool(xs, os, Py_EQ);
    Py_DECREF(xs);
    Py_DECREF(os);
    return ok;
}

/* fast_convert(x, to, src, round, saturate, profile, seed, sr_offset, stats, threads, out) -> the result array
 * (out when given), or NotImplemented (the arguments of convert, in its order). Nothing is written into out unless
 * the call succeeds. */
static PyObject *py_fast_convert(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    PyObject *x = args[0], *out, *dtype, *dst, *shape, *res, *call[2];
    long sfmt, dfmt, round, profile, threads;
    mf_opts o;
    Py_buffer sv, dv;
    layout l;
    int rc;
    size_t n;
    if (nargs != 11 || fast_empty == NULL || (PyObject *)Py_TYPE(x) != fast_ndarray || args[2] != Py_None ||
        args[8] != Py_False || (args[4] != Py_False && args[4] != Py_True) ||
        !PyLong_CheckExact(args[9]))
        Py_RETURN_NOTIMPLEMENTED;
    memset(&o, 0, sizeof o);
    if (!fast_u64(args[6], &o.seed) || !fast_u64(args[7], &o.sr_offset))
        Py_RETURN_NOTIMPLEMENTED;
    threads = PyLong_AsLong(args[9]);
    if (threads == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    round = fast_lookup(fast_rounds, args[3]);
    profile = fast_lookup(fast_profiles, args[5]);
    if (round < 0 || profile < 0 || threads < 0 || threads > INT32_MAX)
        goto slow;
    if ((dtype = PyObject_GetAttr(x, str_dtype)) == NULL)
        return NULL;
    {
        PyObject *v = PyDict_GetItemWithError(fast_src, dtype);
        Py_DECREF(dtype);
        sfmt = v != NULL && PyLong_CheckExact(v) ? PyLong_AsLong(v) : -1;
    }
    dst = PyDict_GetItemWithError(fast_dst, args[1]); /* any hashable key; unhashable ones raise: the wrapper's */
    if (dst == NULL || sfmt < 0 || sfmt >= n_formats || !PyTuple_CheckExact(dst) || PyTuple_GET_SIZE(dst) != 3)
        goto slow;
    dfmt = PyLong_AsLong(PyTuple_GET_ITEM(dst, 0));
    if (dfmt < 0 || dfmt >= n_formats)
        goto slow;
    o.round = (mf_round)round;
    o.overflow = args[4] == Py_True ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE;
    o.profile = (mf_profile)profile;
    o.threads = (int)threads;
    if (PyObject_GetBuffer(x, &sv, PyBUF_SIMPLE) < 0) /* not C-contiguous: the wrapper copies it */
        goto slow;
    if (sv.len % elem_bytes[sfmt] != 0) {
        PyBuffer_Release(&sv);
        goto slow;
    }
    n = (size_t)sv.len / (size_t)elem_bytes[sfmt];
    out = args[10];
    if (out != Py_None) { /* the caller's array, if the wrapper would take it; its checks and messages otherwise */
        const int ok = fast_out_ok(out, x, dst);
        if (ok != 1) {
            PyBuffer_Release(&sv);
            goto slow;
        }
        if (PyObject_GetBuffer(out, &dv, PyBUF_WRITABLE) < 0) { /* read-only or not C-contiguous */
            PyBuffer_Release(&sv);
            goto slow;
        }
        if ((size_t)dv.len != n * (size_t)elem_bytes[dfmt]) {
            PyBuffer_Release(&dv);
            PyBuffer_Release(&sv);
            goto slow;
        }
        Py_INCREF(out);
        res = out;
    } else {
        if ((shape = PyObject_GetAttr(x, str_shape)) == NULL) {
            PyBuffer_Release(&sv);
            return NULL;
        }
        call[0] = shape;
        call[1] = PyTuple_GET_ITEM(dst, 1);
        res = PyObject_Vectorcall(fast_empty, call, 2, NULL);
        Py_DECREF(shape);
        if (res == NULL) {
            PyBuffer_Release(&sv);
            return NULL;
        }
        if (PyObject_GetBuffer(res, &dv, PyBUF_WRITABLE) < 0) {
            PyBuffer_Release(&sv);
            Py_DECREF(res);
            return NULL;
        }
    }
    if (n >= FAST_GIL_MIN) {
        Py_BEGIN_ALLOW_THREADS
        rc = layout_begin(&l, (int)dfmt, dv.buf, (int)sfmt, sv.buf, n);
        if (rc == 0)
            rc = mf_convert((mf_format)dfmt, l.dst, (mf_format)sfmt, l.src, n, &o);
        layout_end(&l, dv.buf, n, rc);
        Py_END_ALLOW_THREADS
    } else {
        rc = layout_begin(&l, (int)dfmt, dv.buf, (int)sfmt, sv.buf, n);
        if (rc == 0)
            rc = mf_convert((mf_format)dfmt, l.dst, (mf_format)sfmt, l.src, n, &o);
        layout_end(&l, dv.buf, n, rc);
    }
    PyBuffer_Release(&dv);
    PyBuffer_Release(&sv);
    if (rc == MF_OK)
        return res;
    Py_DECREF(res); /* refused: the wrapper finds out why and says so */
slow:
    PyErr_Clear(); /* a lookup's error (an unhashable `to`): the wrapper's to name */
    Py_RETURN_NOTIMPLEMENTED;
}

/* first_bad_code(codes, n, bits) -> index of the first byte with a bit set at or above `bits`, or -1. */
static PyObject *py_first_bad_code(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    size_t n;
    int bits;
    if (check_nargs(nargs, 3, "first_bad_code") < 0 || size_arg(args[1], &n) < 0 || int_arg(args[2], &bits) < 0)
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(args[0], &v, PyBUF_SIMPLE) < 0)
        return NULL;
    if ((size_t)v.len < n)
        n = (size_t)v.len;
    const uint8_t *c = (const uint8_t *)v.buf;
    uint8_t mask = bits >= 8 ? 0 : (uint8_t)(0xFFu << bits);
    Py_ssize_t bad = -1;
    if (or_bytes(c, n) & mask)
        for (size_t i = 0; i < n; i++)
            if (c[i] & mask) {
                bad = (Py_ssize_t)i;
                break;
            }
    PyBuffer_Release(&v);
    return PyLong_FromSsize_t(bad);
}

/* ---- FP8 scaling and loss scaling ------------------------------------------------------------------- */

/* amax(fmt, x, n) -> (status, amax) */
static PyObject *py_amax(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int fmt, rc;
    size_t n;
    float am = 0.0f;
    if (check_nargs(nargs, 3, "amax") < 0 || format_arg(args[0], &fmt) < 0 || size_arg(args[2], &n) < 0)
        return NULL;
    Py_buffer v;
    if (get_array(args[1], &v, fmt, n, 0) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_amax((mf_format)fmt, v.buf, n, &am);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    return Py_BuildValue("(id)", rc, (double)am);
}

/* fp8_quantize(dst_fmt, dst, src_fmt, src, n, scale) -> (status, amax) */
static PyObject *py_fp8_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int rc;
    float scale, am = 0.0f;
    pair p;
    if (check_nargs(nargs, 6, "fp8_quantize") < 0 || float_arg(args[5], &scale) < 0 ||
        pair_begin(&p, args, nargs, 6, "fp8_quantize") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_fp8_quantize((mf_format)p.dst_fmt, p.dv.buf, (mf_format)p.src_fmt, p.sv.buf, p.n, scale, &am);
    Py_END_ALLOW_THREADS
    pair_end(&p);
    return Py_BuildValue("(id)", rc, (double)am);
}

/* fp8_dequantize(dst_fmt, dst, src_fmt, src, n, scale_inv) -> status */
static PyObject *py_fp8_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int rc;
    float scale_inv;
    pair p;
    if (check_nargs(nargs, 6, "fp8_dequantize") < 0 || float_arg(args[5], &scale_inv) < 0 ||
        pair_begin(&p, args, nargs, 6, "fp8_dequantize") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_fp8_dequantize((mf_format)p.dst_fmt, p.dv.buf, (mf_format)p.src_fmt, p.sv.buf, p.n, scale_inv);
    Py_END_ALLOW_THREADS
    pair_end(&p);
    return PyLong_FromLong(rc);
}

/* fp8_quantize_current(dst_fmt, dst, src_fmt, src, n, pow2, epsilon) -> (status, amax, scale, scale_inv) */
static PyObject *py_fp8_quantize_current(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int rc, pow2;
    float epsilon, am = 0.0f, sc = 0.0f, si = 0.0f;
    pair p;
    if (check_nargs(nargs, 7, "fp8_quantize_current") < 0 || int_arg(args[5], &pow2) < 0 ||
        float_arg(args[6], &epsilon) < 0 || pair_begin(&p, args, nargs, 7, "fp8_quantize_current") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_fp8_quantize_current((mf_format)p.dst_fmt, p.dv.buf, (mf_format)p.src_fmt, p.sv.buf, p.n, pow2, epsilon,
                                 &am, &sc, &si);
    Py_END_ALLOW_THREADS
    pair_end(&p);
    return Py_BuildValue("(iddd)", rc, (double)am, (double)sc, (double)si);
}

/* unscale(scaler_address, ((array, fmt, n), ...)) -> status (1: an inf or NaN was found). The scaler is the
 * ctypes mf_loss_scaler the Python object owns (tests/test_abi.py checks its layout against the header). */
static PyObject *py_unscale(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (check_nargs(nargs, 2, "unscale") < 0)
        return NULL;
    void *addr = PyLong_AsVoidPtr(args[0]);
    if (addr == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "minifloat._native.unscale: NULL scaler");
        return NULL;
    }
    if (!PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "minifloat._native.unscale: tensors must be a tuple");
        return NULL;
    }
    Py_ssize_t count = PyTuple_Size(args[1]);
    mf_tensor *t = (mf_tensor *)PyMem_Calloc((size_t)(count ? count : 1), sizeof *t);
    Py_buffer *views = (Py_buffer *)PyMem_Calloc((size_t)(count ? count : 1), sizeof *views);
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    if (t == NULL || views == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < count; got++) {
        PyObject *item = PyTuple_GetItem(args[1], got);
        int fmt;
        size_t n;
        if (item == NULL || !PyTuple_Check(item) || PyTuple_Size(item) != 3) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "minifloat._native.unscale: tensors are (array, fmt, n) tuples");
            goto done;
        }
        if (format_arg(PyTuple_GetItem(item, 1), &fmt) < 0 || size_arg(PyTuple_GetItem(item, 2), &n) < 0 ||
            get_array(PyTuple_GetItem(item, 0), &views[got], fmt, n, 1) < 0)
            goto done;
        t[got].data = views[got].buf;
        t[got].format = (mf_format)fmt;
        t[got].n = n;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_unscale_check_tensors((const mf_loss_scaler *)addr, t, (size_t)count);
    Py_END_ALLOW_THREADS
    result = PyLong_FromLong(rc);
done:
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(t);
    return result;
}

/* ---- the calls whose options Python builds as ctypes structs ----------------------------------------- */

/* A C-contiguous buffer of at least `bytes` bytes, writable when asked. */
static int get_bytes(PyObject *o, Py_buffer *view, size_t bytes, int writable) {
    if (PyObject_GetBuffer(o, view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0)
        return -1;
    if ((size_t)view->len < bytes) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "minifloat._native: buffer shorter than the call reads or writes");
        return -1;
    }
    return 0;
}

/* An options struct the ctypes side owns (mf_opts, mf_gemm_opts: tests/test_abi.py checks their layout). */
static int opts_arg(PyObject *o, const void **out) {
    *out = PyLong_AsVoidPtr(o);
    if (*out == NULL && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "minifloat._native: NULL options");
    return *out == NULL ? -1 : 0;
}

/* Bytes of `rows` rows of `ld` elements of fmt; SIZE_MAX where the count overflows (no buffer is that long). */
static size_t matrix_bytes(int fmt, size_t rows, size_t ld) {
    if (ld && rows > SIZE_MAX / ld)
        return SIZE_MAX;
    size_t b = mf_storage_bytes((mf_format)fmt, rows * ld);
    return (b == 0 && rows * ld != 0) ? SIZE_MAX : b;
}

/* gemm(trans_a, trans_b, m, n, k, alpha, a, fmt_a, lda, b, fmt_b, ldb, beta, c, fmt_c, ldc, opts_address)
 * -> status. Row-major; a, b and c in the C layout (e2m1 packed), c written in place. */
static PyObject *py_gemm(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int ta, tb, fa, fb, fc, rc;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    const void *opts;
    if (check_nargs(nargs, 17, "gemm") < 0 || int_arg(args[0], &ta) < 0 || int_arg(args[1], &tb) < 0 ||
        size_arg(args[2], &m) < 0 || size_arg(args[3], &n) < 0 || size_arg(args[4], &k) < 0 ||
        float_arg(args[5], &alpha) < 0 || format_arg(args[7], &fa) < 0 || size_arg(args[8], &lda) < 0 ||
        format_arg(args[10], &fb) < 0 || size_arg(args[11], &ldb) < 0 || float_arg(args[12], &beta) < 0 ||
        format_arg(args[14], &fc) < 0 || size_arg(args[15], &ldc) < 0 || opts_arg(args[16], &opts) < 0)
        return NULL;
    Py_buffer av, bv, cv;
    if (get_bytes(args[6], &av, matrix_bytes(fa, ta ? k : m, lda), 0) < 0)
        return NULL;
    if (get_bytes(args[9], &bv, matrix_bytes(fb, tb ? n : k, ldb), 0) < 0) {
        PyBuffer_Release(&av);
        return NULL;
    }
    if (get_bytes(args[13], &cv, matrix_bytes(fc, m, ldc), 1) < 0) {
        PyBuffer_Release(&bv);
        PyBuffer_Release(&av);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = mf_gemm(MF_ROW_MAJOR, ta ? MF_TRANS : MF_NO_TRANS, tb ? MF_TRANS : MF_NO_TRANS, m, n, k, alpha, av.buf,
                 (mf_format)fa, lda, bv.buf, (mf_format)fb, ldb, beta, cv.buf, (mf_format)fc, ldc,
                 (const mf_gemm_opts *)opts);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&cv);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&av);
    return PyLong_FromLong(rc);
}

/* The three buffers of a block quantizer or dequantizer: a read, b read (dequantizer) or written (quantizer), c
 * written, each at least the given number of bytes; all released by release_all on success. */
static int get_three_buffers(Py_buffer v[3], PyObject *a, size_t ab, PyObject *b, size_t bb, int b_written, PyObject *c,
                             size_t cb) {
    if (get_bytes(a, &v[0], ab, 0) < 0)
        return -1;
    if (get_bytes(b, &v[1], bb, b_written) < 0) {
        PyBuffer_Release(&v[0]);
        return -1;
    }
    if (get_bytes(c, &v[2], cb, 1) < 0) {
        PyBuffer_Release(&v[1]);
        PyBuffer_Release(&v[0]);
        return -1;
    }
    return 0;
}

static void release_all(Py_buffer *v, int count) {
    for (int i = count - 1; i >= 0; i--)
        PyBuffer_Release(&v[i]);
}

/* mx_quantize(type, rule, axis, flags, x, rows, cols, elems, scales, opts_address) -> status */
static PyObject *py_mx_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int type, rule, axis, flags, rc;
    size_t rows, cols, eb = 0, sc = 0;
    const void *opts;
    Py_buffer v[3];
    if (check_nargs(nargs, 10, "mx_quantize") < 0 || int_arg(args[0], &type) < 0 || int_arg(args[1], &rule) < 0 ||
        int_arg(args[2], &axis) < 0 || int_arg(args[3], &flags) < 0 || size_arg(args[5], &rows) < 0 ||
        size_arg(args[6], &cols) < 0 || opts_arg(args[9], &opts) < 0)
        return NULL;
    rc = mf_mx_sizes((mf_mx_type)type, (mf_mx_axis)axis, (unsigned)flags, rows, cols, &eb, &sc);
    if (rc != MF_OK)
        return PyLong_FromLong(rc);
    if (get_three_buffers(v, args[4], matrix_bytes(MF_FP32, rows, cols), args[7], eb, 1, args[8], sc) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_mx_quantize((mf_mx_type)type, (mf_mx_scale_rule)rule, (mf_mx_axis)axis, (unsigned)flags,
                        (const float *)v[0].buf, rows, cols, v[1].buf, (uint8_t *)v[2].buf, (const mf_opts *)opts);
    Py_END_ALLOW_THREADS
    release_all(v, 3);
    return PyLong_FromLong(rc);
}

/* nvfp4_quantize(axis, x, rows, cols, elems, scales, amax_in or None, opts_address) -> (status, amax) */
static PyObject *py_nvfp4_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int axis, rc;
    size_t rows, cols, eb = 0, sc = 0;
    float amax_in = 0.0f, amax_out = 0.0f;
    const void *opts;
    Py_buffer v[3];
    if (check_nargs(nargs, 8, "nvfp4_quantize") < 0 || int_arg(args[0], &axis) < 0 || size_arg(args[2], &rows) < 0 ||
        size_arg(args[3], &cols) < 0 || (args[6] != Py_None && float_arg(args[6], &amax_in) < 0) ||
        opts_arg(args[7], &opts) < 0)
        return NULL;
    rc = mf_nvfp4_sizes((mf_mx_axis)axis, rows, cols, &eb, &sc);
    if (rc != MF_OK)
        return Py_BuildValue("(id)", rc, 0.0);
    if (get_three_buffers(v, args[1], matrix_bytes(MF_FP32, rows, cols), args[4], eb, 1, args[5], sc) < 0)
        return NULL;
    const float *in = args[6] != Py_None ? &amax_in : NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_nvfp4_quantize((mf_mx_axis)axis, (const float *)v[0].buf, rows, cols, (uint8_t *)v[1].buf,
                           (uint8_t *)v[2].buf, in, &amax_out, (const mf_opts *)opts);
    Py_END_ALLOW_THREADS
    release_all(v, 3);
    return Py_BuildValue("(id)", rc, (double)amax_out);
}

/* fp8_block_quantize(dst_fmt, q, scale_inv, src_fmt, x, rows, cols, kind, pow2, epsilon) -> status */
static PyObject *py_fp8_block_quantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int dst_fmt, src_fmt, kind, pow2, rc;
    size_t rows, cols, sr = 0, scn = 0;
    float epsilon;
    Py_buffer v[3];
    if (check_nargs(nargs, 10, "fp8_block_quantize") < 0 || format_arg(args[0], &dst_fmt) < 0 ||
        format_arg(args[3], &src_fmt) < 0 || size_arg(args[5], &rows) < 0 || size_arg(args[6], &cols) < 0 ||
        int_arg(args[7], &kind) < 0 || int_arg(args[8], &pow2) < 0 || float_arg(args[9], &epsilon) < 0)
        return NULL;
    rc = mf_fp8_block_scale_shape((mf_fp8_block)kind, rows, cols, &sr, &scn);
    if (rc != MF_OK)
        return PyLong_FromLong(rc);
    if (get_three_buffers(v, args[4], matrix_bytes(src_fmt, rows, cols), args[1], matrix_bytes(dst_fmt, rows, cols), 1,
                          args[2], matrix_bytes(MF_FP32, sr, scn)) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_fp8_block_quantize((mf_format)dst_fmt, v[1].buf, (float *)v[2].buf, (mf_format)src_fmt, v[0].buf, rows,
                               cols, (mf_fp8_block)kind, pow2, epsilon);
    Py_END_ALLOW_THREADS
    release_all(v, 3);
    return PyLong_FromLong(rc);
}

/* ---- the dequantizers: two operands read, one result written -------------------------------------------- */

/* mx_dequantize(type, axis, flags, elems, scales, rows, cols, y) -> status */
static PyObject *py_mx_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int type, axis, flags, rc;
    size_t rows, cols, eb = 0, sc = 0;
    Py_buffer v[3];
    if (check_nargs(nargs, 8, "mx_dequantize") < 0 || int_arg(args[0], &type) < 0 || int_arg(args[1], &axis) < 0 ||
        int_arg(args[2], &flags) < 0 || size_arg(args[5], &rows) < 0 || size_arg(args[6], &cols) < 0)
        return NULL;
    rc = mf_mx_sizes((mf_mx_type)type, (mf_mx_axis)axis, (unsigned)flags, rows, cols, &eb, &sc);
    if (rc != MF_OK)
        return PyLong_FromLong(rc);
    if (get_three_buffers(v, args[3], eb, args[4], sc, 0, args[7], matrix_bytes(MF_FP32, rows, cols)) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_mx_dequantize((mf_mx_type)type, (mf_mx_axis)axis, (unsigned)flags, v[0].buf, (const uint8_t *)v[1].buf,
                          rows, cols, (float *)v[2].buf);
    Py_END_ALLOW_THREADS
    release_all(v, 3);
    return PyLong_FromLong(rc);
}

/* nvfp4_dequantize(axis, elems, scales, amax, rows, cols, y) -> status */
static PyObject *py_nvfp4_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int axis, rc;
    size_t rows, cols, eb = 0, sc = 0;
    float amax;
    Py_buffer v[3];
    if (check_nargs(nargs, 7, "nvfp4_dequantize") < 0 || int_arg(args[0], &axis) < 0 || float_arg(args[3], &amax) < 0 ||
        size_arg(args[4], &rows) < 0 || size_arg(args[5], &cols) < 0)
        return NULL;
    rc = mf_nvfp4_sizes((mf_mx_axis)axis, rows, cols, &eb, &sc);
    if (rc != MF_OK)
        return PyLong_FromLong(rc);
    if (get_three_buffers(v, args[1], eb, args[2], sc, 0, args[6], matrix_bytes(MF_FP32, rows, cols)) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_nvfp4_dequantize((mf_mx_axis)axis, (const uint8_t *)v[0].buf, (const uint8_t *)v[1].buf, amax, rows, cols,
                             (float *)v[2].buf);
    Py_END_ALLOW_THREADS
    release_all(v, 3);
    return PyLong_FromLong(rc);
}

/* fp8_block_dequantize(dst_fmt, dst, src_fmt, src, scale_inv, rows, cols, kind) -> status */
static PyObject *py_fp8_block_dequantize(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int dst_fmt, src_fmt, kind, rc;
    size_t rows, cols, sr = 0, scn = 0;
    Py_buffer v[3];
    if (check_nargs(nargs, 8, "fp8_block_dequantize") < 0 || format_arg(args[0], &dst_fmt) < 0 ||
        format_arg(args[2], &src_fmt) < 0 || size_arg(args[5], &rows) < 0 || size_arg(args[6], &cols) < 0 ||
        int_arg(args[7], &kind) < 0)
        return NULL;
    rc = mf_fp8_block_scale_shape((mf_fp8_block)kind, rows, cols, &sr, &scn);
    if (rc != MF_OK)
        return PyLong_FromLong(rc);
    if (get_three_buffers(v, args[3], matrix_bytes(src_fmt, rows, cols), args[4], matrix_bytes(MF_FP32, sr, scn), 0,
                          args[1], matrix_bytes(dst_fmt, rows, cols)) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = mf_fp8_block_dequantize((mf_format)dst_fmt, v[2].buf, (mf_format)src_fmt, v[0].buf, (const float *)v[1].buf,
                                 rows, cols, (mf_fp8_block)kind);
    Py_END_ALLOW_THREADS
    release_all(v, 3);
    return PyLong_FromLong(rc);
}

static PyMethodDef methods[] = {
    {"convert", (PyCFunction)(void (*)(void))py_convert, METH_FASTCALL, "mf_convert over buffers"},
    {"fast_setup", (PyCFunction)(void (*)(void))py_fast_setup, METH_FASTCALL,
     "fast_setup(ndarray, empty, src_formats, dst_formats, rounds, profiles): fast_convert's tables"},
    {"fast_convert", (PyCFunction)(void (*)(void))py_fast_convert, METH_FASTCALL,
     "convert's common call from start to finish, or NotImplemented"},
    {"first_bad_code", (PyCFunction)(void (*)(void))py_first_bad_code, METH_FASTCALL,
     "index of the first code with bits at or above `bits` set, or -1"},
    {"amax", (PyCFunction)(void (*)(void))py_amax, METH_FASTCALL, "mf_amax over a buffer"},
    {"fp8_quantize", (PyCFunction)(void (*)(void))py_fp8_quantize, METH_FASTCALL, "mf_fp8_quantize"},
    {"fp8_dequantize", (PyCFunction)(void (*)(void))py_fp8_dequantize, METH_FASTCALL, "mf_fp8_dequantize"},
    {"unscale", (PyCFunction)(void (*)(void))py_unscale, METH_FASTCALL, "mf_unscale_check_tensors"},
    {"gemm", (PyCFunction)(void (*)(void))py_gemm, METH_FASTCALL, "mf_gemm (row-major)"},
    {"mx_quantize", (PyCFunction)(void (*)(void))py_mx_quantize, METH_FASTCALL, "mf_mx_quantize"},
    {"nvfp4_quantize", (PyCFunction)(void (*)(void))py_nvfp4_quantize, METH_FASTCALL, "mf_nvfp4_quantize"},
    {"mx_dequantize", (PyCFunction)(void (*)(void))py_mx_dequantize, METH_FASTCALL, "mf_mx_dequantize"},
    {"nvfp4_dequantize", (PyCFunction)(void (*)(void))py_nvfp4_dequantize, METH_FASTCALL, "mf_nvfp4_dequantize"},
    {"fp8_block_dequantize", (PyCFunction)(void (*)(void))py_fp8_block_dequantize, METH_FASTCALL,
     "mf_fp8_block_dequantize"},
    {"fp8_block_quantize", (PyCFunction)(void (*)(void))py_fp8_block_quantize, METH_FASTCALL,
     "mf_fp8_block_quantize"},
    {"fp8_quantize_current", (PyCFunction)(void (*)(void))py_fp8_quantize_current, METH_FASTCALL,
     "mf_fp8_quantize_current"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native",
                                    "minifloat's hot calls over the buffer protocol (see _native.c)", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    if (init_formats() < 0) {
        PyErr_SetString(PyExc_ImportError, "minifloat._native: the C library reports no formats");
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddStringConstant(m, "library_version", mf_version()) < 0 ||
                      PyModule_AddIntConstant(m, "BAD_CODE", BAD_CODE) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
