/*
 * hdTrace.h: the C API of libhdtrace, the HDTrace trace-writing library.
 *
 * A trace is one file of *states* plus a plain-text sidecar (<name>.info):
 * XML text (<name>.trc), or the same states as compact binary records
 * (<name>.ctrc), which every HDTrace tool reads as its XML form and
 * `hdtrace convert` turns into that XML byte for byte (see
 * hdT_createTraceInFormat). A state is one element with attributes,
 * optional child elements, a start time and an end time:
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
 * at process exit, so the trace is complete after a normal exit.
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

/* The form of a trace file. */
typedef enum hdT_Format {
    /* The HDTRACE_FORMAT environment variable's choice, as the MPI wrapper
     * reads it ("xml" or "compact", in any case); XML when it is unset. Any
     * other value gets a warning on stderr and XML, as in the wrapper. */
    HDT_FORMAT_DEFAULT = 0,
    HDT_FORMAT_XML = 1,    /* XML text, <name>.trc: what the PIOsim tools read */
    HDT_FORMAT_COMPACT = 2 /* compact records, <name>.ctrc: a few bytes a state */
} hdT_Format;

/*
 * Create a trace writing <directory>/<program>_<level1>_..._<levelN>.trc
 * (.ctrc in compact form) and the matching .info. Each name part is
 * sanitised: characters outside [A-Za-z0-9.-] become '-'. directory NULL or
 * "" means the working directory; it is created if missing. The form is
 * HDT_FORMAT_DEFAULT's (see hdT_createTraceInFormat). Returns NULL with
 * errno set when the files cannot be created.
 */
hdTrace hdT_createTrace(const char *directory, const char *program, int nlevels,
                        const char *const levels[]);

/*
 * hdT_createTrace in the given form. HDT_FORMAT_XML and HDT_FORMAT_COMPACT
 * are the program's choice, whatever HDTRACE_FORMAT says; HDT_FORMAT_DEFAULT
 * leaves it to HDTRACE_FORMAT. A value outside hdT_Format returns NULL with
 * errno EINVAL and creates nothing. The functions below work alike on both
 * forms; attribute text given to hdT_logAttributes and hdT_logElement is
 * kept exactly in both.
 */
hdTrace hdT_createTraceInFormat(const char *directory, const char *program, int nlevels,
                                const char *const levels[], hdT_Format format);

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
 * write every complete state of every open trace and close it, then
 * let the signal proceed as before (an earlier handler is called; otherwise
 * the default action, with the same exit status and core dump). */
int hdT_installCrashHandlers(void);

#ifdef __cplusplus
}
#endif

#endif /* HDTRACE_HDTRACE_H */
