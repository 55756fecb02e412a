#ifndef SLUICE_CPCRE2_SHIM_H
#define SLUICE_CPCRE2_SHIM_H

/* Patterns are matched on UTF-8 bytes: the 8-bit library, whose functions end in _8 (pcre2.h's unsuffixed names
   are macros, which Swift does not import). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#endif
