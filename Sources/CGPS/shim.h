// CGPS: the one place where locsim meets libgps's C API.
//
// Every libgps function, and every struct member whose type or place differs between gpsd
// releases, goes through a `CGPS_` wrapper below (Swift reads the stable members of gps_data_t
// directly), so the differences are settled here, in C, by `GPSD_API_MAJOR_VERSION`, and Swift
// sees one signature:
//
//   API 10-13      gps_unpack(char *, ...)                 gps_fd is `socket_t` (int)
//   (API 11 = gpsd 3.22, Debian 12)
//                  gps_stream(..., unsigned int, void *)
//   API 14-16      gps_unpack(const char *, ...)           privdata is a typed pointer
//   (API 14 = gpsd 3.25, Debian 13; API 16 = gpsd 3.26/3.27)
//                  gps_stream(..., watch_t, const char *)
//                  gps_fd: `socket_t` = int in 3.25; `gps_fd_t` = `socket_t` = intptr_t in 3.27
//
// scripts/check-gpsd-api.sh compiles this header and LocationGPSD against the gps.h of newer
// Debian libgps-dev packages (see docs/guides/gps-dongle.md, "Compatibility with newer gpsd").
//
// gps_read and gps_waiting are not used: locsim reads gpsd's socket itself (poll and recv on
// CGPS_fd) and hands each line to CGPS_unpack only after checking its JSON syntax, because
// gpsd 3.22's gps_unpack never returns on some malformed reports (docs/development/fuzzing.md).
// gps_stream is not used either: locsim sends its own `?WATCH=` through the fixed-arity
// CGPS_send, which sidesteps the varying watch flag and device parameter types.
#ifndef LOCSIM_CGPS_SHIM_H
#define LOCSIM_CGPS_SHIM_H

#include <gps.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#if !defined(GPSD_API_MAJOR_VERSION) || GPSD_API_MAJOR_VERSION < 9
#error "locsim needs libgps with GPSD_API_MAJOR_VERSION >= 9 (gpsd 3.20 or newer): altHAE/altMSL and timespec times"
#endif

// Set by scripts/check-gpsd-api.sh (-DLOCSIM_EXPECT_GPSD_API=N) so that a build meant for
// another libgps fails here instead of silently compiling against the system's gps.h.
#if defined(LOCSIM_EXPECT_GPSD_API) && LOCSIM_EXPECT_GPSD_API != GPSD_API_MAJOR_VERSION
#error "gps.h on the include path is not the libgps API version this build expects (LOCSIM_EXPECT_GPSD_API)"
#endif

/// The libgps API version this module was compiled against.
static const int CGPS_apiMajorVersion = GPSD_API_MAJOR_VERSION;

/// A zero-filled `gps_data_t` on the heap (it is tens of kilobytes); release with CGPS_free.
static inline struct gps_data_t *CGPS_allocate(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

static inline void CGPS_free(struct gps_data_t *data) { free(data); }

/// gps_open: 0 on success, -1 with errno set to a negative NL_* code on failure.
static inline int CGPS_open(const char *host, const char *port, struct gps_data_t *data) {
    return gps_open(host, port, data);
}

static inline int CGPS_close(struct gps_data_t *data) { return gps_close(data); }

/// gps_send with a fixed arity: the variadic original does not import into Swift.
static inline int CGPS_send(struct gps_data_t *data, const char *command) {
    return gps_send(data, "%s", command);
}

/// gps_unpack: `char *` up to API 13, `const char *` from API 14 on. It never writes through
/// the pointer in either; the wrapper takes the narrower `const char *` and casts where needed.
static inline int CGPS_unpack(const char *json, struct gps_data_t *data) {
#if GPSD_API_MAJOR_VERSION >= 14
    return gps_unpack(json, data);
#else
    return gps_unpack((char *)json, data);
#endif
}

static inline const char *CGPS_errstr(int code) { return gps_errstr(code); }

/// The socket: an `int` up to gpsd 3.25, an intptr_t (`gps_fd_t`) in 3.27; a descriptor either way.
static inline int CGPS_fd(const struct gps_data_t *data) { return (int)data->gps_fd; }

/// The device path of the last DEVICE report (or of the device that sent the last TPV).
static inline const char *CGPS_devicePath(const struct gps_data_t *data) { return data->dev.path; }

/// Satellite `index` of the last SKY report (0 ≤ index < satellites_visible ≤ MAXCHANNELS): a
/// pointer, because Swift imports the skyview array as a tuple of MAXCHANNELS elements.
static inline const struct satellite_t *CGPS_satellite(const struct gps_data_t *data, int index) {
    return &data->skyview[index];
}

/// How many satellites the skyview array holds (this libgps's MAXCHANNELS; 140 in gpsd 3.22).
static const int CGPS_maximumSatellites = MAXCHANNELS;

/// The text of the last ERROR report.
static inline const char *CGPS_errorMessage(const struct gps_data_t *data) { return data->error; }

/// The gpsd release named by the last VERSION report.
static inline const char *CGPS_release(const struct gps_data_t *data) { return data->version.release; }

#endif
