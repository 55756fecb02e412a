// The scanner is header-only (static inline), so that Swift callers inline it; this file gives SwiftPM a source.
#include "structural_scan.h"
