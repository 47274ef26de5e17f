// Inlining hints for the readers' per-attribute and per-tag work, which is
// small and runs millions of times per trace: inlined into its loop (a call
// costs as much as the work), the rare cases kept out of it.
#pragma once

#if defined(__GNUC__)
#define HDTRACE_HOT_INLINE inline __attribute__((always_inline))
#define HDTRACE_COLD __attribute__((noinline, cold))
#else
#define HDTRACE_HOT_INLINE inline
#define HDTRACE_COLD
#endif
