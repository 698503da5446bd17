/* SPDX-License-Identifier: MIT */
/* src/mpi/sum.h - the element-wise adds of the deterministic sums (src/mpi/sum.c). */
#ifndef MF_MPI_SUM_H
#define MF_MPI_SUM_H

#include <fenv.h>
#include <stddef.h>
#include <stdint.h>

/* The caller's FP environment while the adds run, and whether they use the hardware's add (hw = 1: the
 * default environment is pinned and passed its self-check) or mf__f32_add_bits (hw = 0). */
typedef struct mf__mpi_adder {
    fenv_t saved;
    int saved_ok, hw;
} mf__mpi_adder;

/* Save the caller's environment and pin the default one; every begin has its end. */
void mf__mpi_add_begin(mf__mpi_adder *ad);
/* Restore the caller's environment, exception flags included. */
void mf__mpi_add_end(mf__mpi_adder *ad);

/* acc[i] = acc[i] + x[i], i < m: binary32 round to nearest even; a NaN operand comes out quieted (acc's
 * first), inf + -inf is 0x7FC00000 (mf__f32_add_bits's rule). x is binary32, or bf16 codes. */
void mf__mpi_add_f32(const mf__mpi_adder *ad, float *acc, const float *x, size_t m);
void mf__mpi_add_bf16(const mf__mpi_adder *ad, float *acc, const uint16_t *x, size_t m);
/* acc[i] = x[i] decoded from bf16 (exact) */
void mf__mpi_widen_bf16(float *acc, const uint16_t *x, size_t m);

#endif /* MF_MPI_SUM_H */
