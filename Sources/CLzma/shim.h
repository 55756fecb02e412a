#include <lzma.h>

// liblzma defines its decoder flags with UINT32_C, which Swift does not import.
static const uint32_t sluice_lzma_concatenated = LZMA_CONCATENATED;
