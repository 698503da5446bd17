/* src/simd/round.c - one round kernel: blocks of binary32 bits -> BK_DST in every mode, policy and
 * counting, for one backend. sources.cmake compiles it once per (backend, destination) from a file it
 * generates, which defines BK_DST and BK_ROUND_NAME and includes the backend's configuration first. */
#include "backend_kernels.h"

ROOM_RFUNC(BK_DST, BK_ROUND_NAME)
