#ifndef FOLIO_CLIBFUZZER_SHIM_H
#define FOLIO_CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, LLVM 11 and later), linked in by `-sanitize=fuzzer`. Only
/// the fuzz build (`-D FOLIO_FUZZING`) calls it; the normal build never references it.
int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*callback)(const uint8_t *data, size_t size));

/// LeakSanitizer (`sanitizer/lsan_interface.h`): objects allocated between `__lsan_disable` and
/// `__lsan_enable` are never reported. The fuzz executables build their long-lived state (the
/// fixed models) in between, since LeakSanitizer cannot follow pointers that Swift keeps with
/// tag bits in enum payloads (`Data`'s storage), and would report that state as leaked.
void __lsan_disable(void);
void __lsan_enable(void);

#endif
