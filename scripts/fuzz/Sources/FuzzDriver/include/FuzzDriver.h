#ifndef LOCSIM_FUZZ_DRIVER_H
#define LOCSIM_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for programs that keep their own main (compiler-rt's FuzzerInterface.h).
/// SwiftPM renames an executable's entry point to MODULE_main and points `main` at it, so each
/// target's MODULE_main hands its callback to this driver.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
