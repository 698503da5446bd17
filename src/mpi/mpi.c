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
#include <minifloat/bf16.h>
#include <minifloat/detail/arith.h>

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

/* The ordered sums of this rank's shard into out[0 .. s->count-1]; send and fmt checked. */
static int reduce_shard(MPI_Comm comm, const shards *s, mf_format fmt, const void *send, void *buf, float *out)
{
    const MPI_Datatype t = fmt == MF_BF16 ? MPI_UINT16_T : MPI_UINT32_T;
    const size_t m = s->count;
    size_t i;
    int r;
    if (MPI_Alltoallv(send, s->len, s->off, t, buf, s->mine, s->at, t, comm) != MPI_SUCCESS)
        return MF_E_REDUCE;
    /* rank 0's part first, then each next rank's added to the running sums: ((x0 + x1) + x2) + ... */
    for (r = 0; r < s->ranks; r++) {
        for (i = 0; i < m; i++) {
            uint32_t x, acc;
            if (fmt == MF_BF16) {
                const float v = mf_bf16_to_f32(mf_bf16_from_bits(((const uint16_t *)buf)[(size_t)r * m + i]));
                memcpy(&x, &v, sizeof x);
            } else {
                x = ((const uint32_t *)buf)[(size_t)r * m + i];
            }
            /* recv is the caller's float array: its bits go through memcpy, not a uint32_t lvalue */
            if (r > 0) {
                memcpy(&acc, &out[i], sizeof acc);
                x = mf__f32_add_bits(acc, x);
            }
            memcpy(&out[i], &x, sizeof x);
        }
    }
    return MF_OK;
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
    int rc;
    if (comm == MPI_COMM_NULL)
        return MF_E_NULL;
    rc = shards_make(&s, comm, n);
    if (rc == MF_E_REDUCE) /* MPI_Comm_rank failed: nothing to agree with */
        return rc;
    if (rc == MF_OK)
        rc = check_sum(fmt, send, out, n, all ? n : s.count);
    if (rc == MF_OK && s.count) {
        buf = malloc((size_t)s.ranks * s.count * (fmt == MF_BF16 ? 2 : 4));
        if (!buf)
            rc = MF_E_NOMEM;
    }
    rc = agree(comm, rc, n, (int)fmt);
    if (rc == MF_OK && n) {
        rc = reduce_shard(comm, &s, fmt, send, buf, out + (all ? s.start : 0));
        if (rc == MF_OK && all &&
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, s.len, s.off, MPI_UINT32_T, comm) != MPI_SUCCESS)
            rc = MF_E_REDUCE;
    }
    free(buf);
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
