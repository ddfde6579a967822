#ifndef ANALYZE_CISAL_SHIM_H
#define ANALYZE_CISAL_SHIM_H
// ISA-L's streaming inflate (Debian: libisal-dev). Used instead of the built-in
// decoder when the header is present at build time; see Package.swift and
// docs/architecture.md.
#include <isa-l/igzip_lib.h>
#endif
