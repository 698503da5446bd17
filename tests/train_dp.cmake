# SPDX-License-Identifier: MIT
# Data-parallel training of the demo's model (tools/train_demo/data_parallel.c): over MPI with 2 and 3
# ranks (uneven shards), where minifloat_mpi is built (mf_add_mpi_test comes from mpi.cmake, included
# before this file); the single-process parts everywhere.
if(TARGET mf_tools)
  if(MF_HAVE_MPI)
    mf_add_mpi_test(test_train_dp SOURCES mpi/test_train_dp.c LIBS mf_tools NP 2 3 TIMEOUT 120)
  endif()
  mf_add_test(test_train_dp_local SOURCES test_train_dp_local.c LIBS mf_tools LABELS unit TIMEOUT 120)
endif()
