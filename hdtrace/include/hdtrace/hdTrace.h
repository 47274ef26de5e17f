/*
 * hdTrace.h: the C API of libhdtrace, the HDTrace trace-writing library.
 *
 * A trace is one XML file of *states* (<name>.trc) plus a plain-text sidecar
 * (<name>.info). A state is one element with attributes, optional child
 * elements, a start time and an end time:
 *
 *     hdTrace trace = hdT_createTrace(NULL, "app", 3, levels);
 *     hdT_logStateStart(trace, "Compute");
 *     hdT_logAttributes(trace, "step='%d'", step);
 *     hdT_logElement(trace, "Data", "size='%lld'", (long long)bytes);
 *     hdT_logStateEnd(trace);
 *     hdT_finalize(trace);
 *
 * writes <Compute step='1' time='..' end='..'><Data size='8'/></Compute>.
 *
 * Every function returns 0 on success and -1 with errno set on misuse:
 * EINVAL for a NULL trace or argument, EBADF for a trace already finalized,
 * EPERM for a state end without a start or an attribute outside a state,
 * EOVERFLOW for states nested deeper than HD_LOG_MAX_DEPTH, EIO when the
 * trace could not be written (the trace then stops; the program goes on).
 *
 * A trace belongs to one thread. Traces that are not finalized are closed
 * at process exit, so the XML is well-formed after a normal exit.
 */
#ifndef HDTRACE_HDTRACE_H
#define HDTRACE_HDTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Open states a trace can hold at once; a state started inside another is
 * nested. Nested states deeper than the trace's nested depth (see
 * hdT_setNestedDepth) are counted but not written. */
#define HD_LOG_MAX_DEPTH 16

typedef struct hdTraceHandle *hdTrace;

/*
 * Create a trace writing <directory>/<program>_<level1>_..._<levelN>.trc and
 * the matching .info. Each name part is sanitised: characters outside
 * [A-Za-z0-9.-] become '-'. directory NULL or "" means the working
 * directory; it is created if missing. Returns NULL with errno set when the
 * files cannot be created.
 */
hdTrace hdT_createTrace(const char *directory, const char *program, int nlevels,
                        const char *const levels[]);

/* Begin a state named stateName (an XML name), taking its start time. */
int hdT_logStateStart(hdTrace trace, const char *stateName);

/* End the innermost open state, taking its end time, and write it. */
int hdT_logStateEnd(hdTrace trace);

/* Append attributes to the innermost open state, printf-style, e.g.
 * "size='%lld' cid='%d'". The text is written as given: escape values
 * yourself, and keep the attributes the wrapper writes as numbers (size,
 * count, cid, ...) within 64 bits, as the readers require. */
int hdT_logAttributes(hdTrace trace, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Add a child element <elementName attributes/> to the innermost open state;
 * format as for hdT_logAttributes (NULL for no attributes). */
int hdT_logElement(hdTrace trace, const char *elementName, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Write text to the .info sidecar immediately, printf-style, as given. */
int hdT_writeInfo(hdTrace trace, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* How many levels of nested states are written below a top-level state:
 * 0 (the default) writes top-level states only. 0 <= depth < HD_LOG_MAX_DEPTH. */
int hdT_setNestedDepth(hdTrace trace, int depth);

/* flush != 0: every top-level state reaches the file when it ends.
 * flush == 0 (the default): the trace is written in large blocks. */
int hdT_setForceFlush(hdTrace trace, int flush);

/* While disabled, states are tracked but not written. */
int hdT_enableTrace(hdTrace trace);
int hdT_disableTrace(hdTrace trace);

/* 1 when enabled, 0 when disabled, -1 with errno on error. */
int hdT_isEnabled(hdTrace trace);

/* Close open states, write </Program>, close both files. The handle must
 * not be used afterwards; calls that still use it fail with EBADF. */
int hdT_finalize(hdTrace trace);

/* Install handlers for SIGSEGV, SIGBUS, SIGABRT, SIGFPE and SIGTERM that
 * write every complete state of every open trace and close its XML, then
 * let the signal proceed as before (an earlier handler is called; otherwise
 * the default action, with the same exit status and core dump). */
int hdT_installCrashHandlers(void);

#ifdef __cplusplus
}
#endif

#endif /* HDTRACE_HDTRACE_H */
