#ifndef SALVO_CLIBFUZZER_H
#define SALVO_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, linked in by `-sanitize=fuzzer`: runs the fuzzing loop (or replays the files
/// named on the command line) with `callback` as the target, taking libFuzzer's own flags.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
