/* src/internal.h - what the rooms and the door share (never installed). */
#ifndef MF_SRC_INTERNAL_H
#define MF_SRC_INTERNAL_H

#include <minifloat.h>

/* A bulk conversion kernel. Arguments are already validated by mf_convert: formats and modes are in
 * range, pointers are non-NULL, n > 0, buffers do not overlap unless the formats are equal.
 * stats is NULL when the caller does not count; otherwise the kernel overwrites it. */
typedef void (*mf__convert_fn)(mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                               const mf_opts *opts, mf_stats *stats);

/* A room: one implementation of every bulk kernel. */
typedef struct mf__room {
    const char *name;
    mf__convert_fn convert;
} mf__room;

/* The rooms (each defined in its own file). */
extern const mf__room mf__room_portable;

/* The door: the room chosen for this process (see dispatch.c). */
const mf__room *mf__room_active(void);

#endif /* MF_SRC_INTERNAL_H */
