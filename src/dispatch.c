/* src/dispatch.c - the door: the one place that chooses a room.
 *
 * Today there is one room, the portable one. SIMD rooms add themselves here, chosen once per process
 * by CPU features, and MF_BACKEND=<room name> in the environment forces one (for tests and
 * benchmarks).
 */
#include "internal.h"

const mf__room *mf__room_active(void) { return &mf__room_portable; }
