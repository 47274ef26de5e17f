// Inlining and placement hints. The readers' per-attribute and per-tag
// work is small and runs millions of times per trace: inlined into its loop
// (a call costs as much as the work), the rare cases kept out of it.
//
// HDTRACE_CALL_PATH marks a function of the writer and wrappers that runs
// in every traced call. The compiler puts such functions in .text.hot,
// which the linker gathers in one place, so that the path of a call spans
// a few pages of code, not one page per function: after a system call
// (the traced call's own, a write of the trace) each page touched costs a
// TLB miss again where the kernel isolates its page tables.
//
// HDTRACE_LIKELY and HDTRACE_UNLIKELY tell the compiler which way a test
// on the call path mostly goes, so that the common way runs straight on:
// after a system call every line of code it jumps to is fetched again.
#pragma once

#if defined(__GNUC__)
#define HDTRACE_HOT_INLINE inline __attribute__((always_inline))
#define HDTRACE_COLD __attribute__((noinline, cold))
#define HDTRACE_CALL_PATH __attribute__((hot))
#define HDTRACE_UNLIKELY(condition) __builtin_expect(static_cast<bool>(condition), 0)
#define HDTRACE_LIKELY(condition) __builtin_expect(static_cast<bool>(condition), 1)
#else
#define HDTRACE_UNLIKELY(condition) (condition)
#define HDTRACE_LIKELY(condition) (condition)
#define HDTRACE_HOT_INLINE inline
#define HDTRACE_COLD
#define HDTRACE_CALL_PATH
#endif
