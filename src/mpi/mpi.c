/* SPDX-License-Identifier: MIT */
/* src/mpi/mpi.c - the reduction hook over MPI, and deterministic sums of gradients (minifloat/mpi.h).
 *
 * The sums fix the order of the additions themselves instead of trusting MPI_SUM, whose order depends
 * on the implementation, the rank count and the message size: an all-to-all by shards brings every
 * rank's part of a shard to its owner, the owner adds them in rank order, and an all-gather hands the
 * sums around. Bits cross the wire unchanged (MPI_UINT32_T, MPI_UINT16_T), never as MPI_FLOAT.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat/mpi.h>

#include "sum.h"

/* ---- the hook ----------------------------------------------------------------------------------- */

int mf_mpi_reduce_init(mf_mpi_reduce *ctx, MPI_Comm comm, mf_reduce_hook *hook)
{
    if (!ctx || !hook || comm == MPI_COMM_NULL)
        return MF_E_NULL;
    ctx->comm = comm;
    ctx->mpi_error = MPI_SUCCESS;
    hook->max = mf_mpi_reduce_max;
    hook->ctx = ctx;
    return MF_OK;
}

int mf_mpi_reduce_max(void *ctx, float *values, size_t n)
{
    mf_mpi_reduce *c = (mf_mpi_reduce *)ctx;
    if (!c || c->comm == MPI_COMM_NULL || (!values && n))
        return -1;
    /* every rank has the same n, so every rank makes the same chunked calls */
    while (n) {
        const int k = n > (size_t)INT_MAX ? INT_MAX : (int)n;
        const int rc = MPI_Allreduce(MPI_IN_PLACE, values, k, MPI_INT32_T, MPI_MAX, c->comm);
        if (rc != MPI_SUCCESS) {
            c->mpi_error = rc;
            return rc;
        }
        values += k;
        n -= (size_t)k;
    }
    return 0;
}

/* ---- the sums ------------------------------------------------------------------------------------- */

int mf_mpi_shard(size_t n, int rank, int ranks, size_t *start, size_t *count)
{
    size_t q, r, a, b;
    if (!start || !count)
        return MF_E_NULL;
    if (ranks < 1 || rank < 0 || rank >= ranks)
        return MF_E_ARG;
    /* n*k/ranks = q*k + (r*k)/ranks with n = q*ranks + r: r*k < ranks^2 < 2^62 cannot overflow */
    q = n / (size_t)ranks;
    r = n % (size_t)ranks;
    a = q * (size_t)rank + (size_t)((uint64_t)r * (uint64_t)rank / (uint64_t)ranks);
    b = q * (size_t)(rank + 1) + (size_t)((uint64_t)r * (uint64_t)(rank + 1) / (uint64_t)ranks);
    *start = a;
    *count = b - a;
    return MF_OK;
}

static int overlaps(const void *p, size_t pbytes, const void *q, size_t qbytes)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return pbytes && qbytes && a < b + qbytes && b < a + pbytes;
}

/* Every rank's verdict on its own arguments, and whether n and fmt agree, in one small all-reduce before
 * any data moves, so that a failing rank never leaves the others inside the big exchange. Returns MF_OK
 * when every rank may go on; else this rank's own code, or MF_E_REDUCE. */
static int agree(MPI_Comm comm, int local_rc, size_t n, int fmt)
{
    uint64_t v[5];
    v[0] = local_rc != MF_OK;
    v[1] = (uint64_t)n;
    v[2] = ~(uint64_t)n; /* max of ~n = ~(min of n) */
    v[3] = (uint64_t)(uint32_t)fmt;
    v[4] = ~(uint64_t)(uint32_t)fmt;
    if (MPI_Allreduce(MPI_IN_PLACE, v, 5, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return local_rc != MF_OK ? local_rc : MF_E_REDUCE;
    if (local_rc != MF_OK)
        return local_rc;
    if (v[0] || v[1] != ~v[2] || v[3] != ~v[4])
        return MF_E_REDUCE;
    return MF_OK;
}

/* The counts and displacements of the shards, in elements; n <= INT_MAX - (ranks - 1) was checked, so
 * every one fits in an int. */
typedef struct shards {
    int rank, ranks;
    size_t start, count; /* this rank's shard */
    int *len, *off;      /* [ranks] each shard's length and start */
    int *mine, *at;      /* [ranks] this shard's length, and r * length (the all-to-all's receive side) */
    int *mem;
} shards;

static int shards_make(shards *s, MPI_Comm comm, size_t n)
{
    int r;
    s->mem = NULL;
    if (MPI_Comm_rank(comm, &s->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &s->ranks) != MPI_SUCCESS)
        return MF_E_REDUCE;
    if (n > (size_t)INT_MAX - (size_t)(s->ranks - 1))
        return MF_E_SIZE;
    mf_mpi_shard(n, s->rank, s->ranks, &s->start, &s->count);
    s->mem = (int *)malloc(4 * (size_t)s->ranks * sizeof(int));
    if (!s->mem)
        return MF_E_NOMEM;
    s->len = s->mem;
    s->off = s->len + s->ranks;
    s->mine = s->off + s->ranks;
    s->at = s->mine + s->ranks;
    for (r = 0; r < s->ranks; r++) {
        size_t a, c;
        mf_mpi_shard(n, r, s->ranks, &a, &c);
        s->off[r] = (int)a;
        s->len[r] = (int)c;
        s->mine[r] = (int)s->count;
        s->at[r] = r * (int)s->count;
    }
    return MF_OK;
}

/* ---- the work buffer, kept between calls ----------------------------------------------------------- */

/* The receive buffer of the pipelined exchange: two halves of `ranks` chunks. One is kept between calls (as
 * mf_gemm keeps its packing buffers), so that a training step does not allocate and fault in a fresh one;
 * taken and given back with an atomic exchange, so that sums running at once on several threads each get
 * their own (a second one is allocated while the kept one is in use). */
typedef struct work {
    size_t bytes;
    /* the buffer follows, aligned for any element type */
} work;
#define WORK_HEAD ((sizeof(work) + 63) / 64 * 64)

static work *kept;

static void *work_take(size_t bytes, work **w)
{
    work *k = __atomic_exchange_n(&kept, (work *)NULL, __ATOMIC_ACQ_REL);
    if (k && k->bytes < bytes) {
        free(k);
        k = NULL;
    }
    if (!k) {
        k = (work *)malloc(WORK_HEAD + bytes);
        if (!k)
            return NULL;
        k->bytes = bytes;
    }
    *w = k;
    return (char *)k + WORK_HEAD;
}

static void work_give(work *w)
{
    work *old;
    if (!w)
        return;
    old = __atomic_exchange_n(&kept, w, __ATOMIC_ACQ_REL);
    if (old) { /* two were in use at once: keep the larger */
        if (old->bytes > w->bytes)
            old = __atomic_exchange_n(&kept, old, __ATOMIC_ACQ_REL);
        free(old);
    }
}

/* ---- the pipelined reduce-scatter ------------------------------------------------------------------ */

/* Elements of each shard per exchange: the exchange of chunk j + 1 is in flight while chunk j is added, and
 * a chunk's parts (ranks x chunk elements, CHUNK_ALL in all, but at least CHUNK_MIN from each rank) stay in
 * the cache between the receive and the add. */
#define CHUNK_ALL ((size_t)1 << 18)
#define CHUNK_MIN ((size_t)1 << 12)

/* the chunk length of the sums of n elements: also within the longest shard, and ranks * chunk <= INT_MAX
 * (the receive displacements) */
static size_t chunk_len(const shards *s)
{
    const size_t longest = (size_t)s->len[s->ranks - 1]; /* ceil(n / ranks): the last shard is a longest */
    size_t c = CHUNK_ALL / (size_t)s->ranks;
    if (c < CHUNK_MIN)
        c = CHUNK_MIN;
    if (c > (size_t)INT_MAX / (size_t)s->ranks)
        c = (size_t)INT_MAX / (size_t)s->ranks;
    return c < longest ? c : longest;
}
/* elements added between two MPI_Test calls, which move the next chunk along (MPI progresses inside calls) */
#define SLICE ((size_t)1 << 14)

/* one exchange: this chunk's counts and displacements, kept until it completes */
typedef struct xchg {
    MPI_Request req;
    int *scount, *sdispl, *rcount, *rdispl;
    size_t at, len; /* the chunk: elements [at, at + len) of this rank's shard */
} xchg;

/* Post the exchange of chunk j: every shard's elements [j*CHUNK, ...) to its owner, into buf (`ranks` parts
 * of len elements). This rank's own part is not sent: the sums read it from send. */
static int post(MPI_Comm comm, const shards *s, MPI_Datatype t, const void *send, void *buf, size_t chunk, size_t j,
                xchg *x)
{
    int r;
    x->at = j * chunk;
    x->len = x->at < s->count ? (s->count - x->at < chunk ? s->count - x->at : chunk) : 0;
    for (r = 0; r < s->ranks; r++) {
        const size_t len_r = (size_t)s->len[r], at_r = j * chunk;
        const size_t part = at_r < len_r ? (len_r - at_r < chunk ? len_r - at_r : chunk) : 0;
        x->scount[r] = r == s->rank ? 0 : (int)part;
        x->sdispl[r] = s->off[r] + (int)(at_r < len_r ? at_r : 0);
        x->rcount[r] = r == s->rank ? 0 : (int)x->len;
        x->rdispl[r] = r * (int)x->len;
    }
    return MPI_Ialltoallv(send, x->scount, x->sdispl, t, buf, x->rcount, x->rdispl, t, comm, &x->req) == MPI_SUCCESS
               ? MF_OK
               : MF_E_REDUCE;
}

/* out[i] = ((x_0 + x_1) + x_2) + ... for the chunk, rank r's part from buf (or from send for this rank),
 * with MPI_Test on `next` between slices */
static int add_chunk(const shards *s, mf_format fmt, const mf__mpi_adder *ad, const void *send, const void *buf,
                     const xchg *x, float *out, MPI_Request *next)
{
    size_t a, i;
    int r, done;
    for (a = 0; a < x->len; a += SLICE) {
        const size_t m = x->len - a < SLICE ? x->len - a : SLICE;
        float *o = out + x->at + a;
        for (r = 0; r < s->ranks; r++) {
            /* element (x->at + a) of shard `rank` from rank r */
            const size_t from = r == s->rank ? s->start + x->at + a : (size_t)r * x->len + a;
            const void *src = r == s->rank ? send : buf;
            if (fmt == MF_BF16) {
                const uint16_t *v = (const uint16_t *)src + from;
                if (r == 0)
                    mf__mpi_widen_bf16(o, v, m);
                else
                    mf__mpi_add_bf16(ad, o, v, m);
            } else {
                const float *v = (const float *)src + from;
                if (r == 0) {
                    for (i = 0; i < m; i++) /* bits unchanged, as MPI moved them */
                        memcpy(&o[i], &v[i], 4);
                } else {
                    mf__mpi_add_f32(ad, o, v, m);
                }
            }
        }
        if (*next != MPI_REQUEST_NULL && MPI_Test(next, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return MF_E_REDUCE;
    }
    return MF_OK;
}

/* The ordered sums of this rank's shard into out[0 .. s->count-1]; send and fmt checked. buf holds two
 * halves of ranks * chunk elements, cnt 8 * ranks ints. Every rank makes the same number of exchanges (the
 * longest shard's chunk count), so the collectives match. */
static int reduce_shard(MPI_Comm comm, const shards *s, mf_format fmt, const void *send, void *buf, int *cnt,
                        float *out)
{
    const MPI_Datatype t = fmt == MF_BF16 ? MPI_UINT16_T : MPI_UINT32_T;
    const size_t chunk = chunk_len(s), es = fmt == MF_BF16 ? 2 : 4, half = (size_t)s->ranks * chunk * es;
    const size_t longest = (size_t)s->len[s->ranks - 1], chunks = chunk ? (longest + chunk - 1) / chunk : 0;
    xchg x[2];
    mf__mpi_adder ad;
    size_t j;
    int h, rc = MF_OK;
    for (h = 0; h < 2; h++) {
        x[h].req = MPI_REQUEST_NULL;
        x[h].scount = cnt + (size_t)(4 * h) * (size_t)s->ranks;
        x[h].sdispl = x[h].scount + s->ranks;
        x[h].rcount = x[h].sdispl + s->ranks;
        x[h].rdispl = x[h].rcount + s->ranks;
    }
    if (chunks)
        rc = post(comm, s, t, send, buf, chunk, 0, &x[0]);
    mf__mpi_add_begin(&ad);
    for (j = 0; j < chunks && rc == MF_OK; j++) {
        xchg *cur = &x[j & 1], *nxt = &x[(j + 1) & 1];
        if (j + 1 < chunks)
            rc = post(comm, s, t, send, (char *)buf + ((j + 1) & 1) * half, chunk, j + 1, nxt);
        if (rc == MF_OK && MPI_Wait(&cur->req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            rc = MF_E_REDUCE;
        if (rc == MF_OK)
            rc = add_chunk(s, fmt, &ad, send, (char *)buf + (j & 1) * half, cur, out, &nxt->req);
    }
    mf__mpi_add_end(&ad);
    /* after a failure, a posted exchange is still waited for: its buffers are about to be given back */
    for (h = 0; h < 2; h++)
        if (x[h].req != MPI_REQUEST_NULL)
            MPI_Wait(&x[h].req, MPI_STATUS_IGNORE);
    return rc;
}

/* The checks every sum makes on its own arguments, before the status exchange. */
static int check_sum(mf_format fmt, const void *send, const void *recv, size_t n, size_t recv_count)
{
    size_t es;
    if (fmt != MF_FP32 && fmt != MF_BF16)
        return MF_E_FORMAT;
    if (n && (!send || (!recv && recv_count)))
        return MF_E_NULL;
    es = fmt == MF_BF16 ? 2 : 4;
    if (overlaps(send, n * es, recv, recv_count * sizeof(float)))
        return MF_E_OVERLAP;
    return MF_OK;
}

/* reduce-scatter (all = 0: out is this shard's recv) or all-reduce (all = 1: out is the n-vector) */
static int sum_common(MPI_Comm comm, mf_format fmt, const void *send, float *out, size_t n, int all)
{
    shards s;
    void *buf = NULL;
    work *w = NULL;
    int rc;
    if (comm == MPI_COMM_NULL)
        return MF_E_NULL;
    rc = shards_make(&s, comm, n);
    if (rc == MF_E_REDUCE) /* MPI_Comm_rank failed: nothing to agree with */
        return rc;
    if (rc == MF_OK)
        rc = check_sum(fmt, send, out, n, all ? n : s.count);
    if (rc == MF_OK && n) {
        /* two halves of `ranks` chunks, then the exchanges' counts (4 arrays of `ranks` ints, twice) */
        const size_t half = (size_t)s.ranks * chunk_len(&s) * (fmt == MF_BF16 ? 2 : 4);
        buf = work_take(2 * half + 8 * (size_t)s.ranks * sizeof(int), &w);
        if (!buf)
            rc = MF_E_NOMEM;
    }
    rc = agree(comm, rc, n, (int)fmt);
    if (rc == MF_OK && n) {
        const size_t half = (size_t)s.ranks * chunk_len(&s) * (fmt == MF_BF16 ? 2 : 4);
        rc = reduce_shard(comm, &s, fmt, send, buf, (int *)(void *)((char *)buf + 2 * half),
                          out + (all ? s.start : 0));
        if (rc == MF_OK && all &&
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, s.len, s.off, MPI_UINT32_T, comm) != MPI_SUCCESS)
            rc = MF_E_REDUCE;
    }
    work_give(w);
    free(s.mem);
    return rc;
}

int mf_mpi_allreduce_sum(MPI_Comm comm, mf_format fmt, const void *send, float *recv, size_t n)
{
    return sum_common(comm, fmt, send, recv, n, 1);
}

int mf_mpi_reduce_scatter_sum(MPI_Comm comm, mf_format fmt, const void *send, float *recv, size_t n)
{
    return sum_common(comm, fmt, send, recv, n, 0);
}

int mf_mpi_allgather_shards(MPI_Comm comm, const float *mine, float *all, size_t n)
{
    shards s;
    int rc;
    int in_place = 0;
    if (comm == MPI_COMM_NULL)
        return MF_E_NULL;
    rc = shards_make(&s, comm, n);
    if (rc == MF_E_REDUCE)
        return rc;
    if (rc == MF_OK && n && (!all || (!mine && s.count)))
        rc = MF_E_NULL;
    if (rc == MF_OK && s.count) {
        in_place = mine == all + s.start;
        if (!in_place && overlaps(mine, s.count * sizeof(float), all, n * sizeof(float)))
            rc = MF_E_OVERLAP;
    }
    rc = agree(comm, rc, n, 0);
    if (rc == MF_OK && n) {
        /* the shard goes to its place first (unless it is there), then one in-place gather for both cases */
        if (!in_place && s.count)
            memcpy(all + s.start, mine, s.count * sizeof(float));
        if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, s.len, s.off, MPI_UINT32_T, comm) != MPI_SUCCESS)
            rc = MF_E_REDUCE;
    }
    free(s.mem);
    return rc;
}
