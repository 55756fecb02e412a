#ifndef SLUICE_CMALLOC_SHIM_H
#define SLUICE_CMALLOC_SHIM_H

#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Hands the pages malloc holds free back to the system (glibc keeps them for reuse otherwise); elsewhere nothing. */
static inline void cmalloc_release_free_pages(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

#endif
