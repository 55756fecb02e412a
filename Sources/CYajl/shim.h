#ifndef SLUICE_CYAJL_SHIM_H
#define SLUICE_CYAJL_SHIM_H

#include <yajl/yajl_parse.h>

/* yajl_config is variadic, and Swift cannot call C variadic functions: one fixed-arity adapter per use. */
static inline int cyajl_config_flag(yajl_handle handle, yajl_option option, int enabled) {
    return yajl_config(handle, option, enabled);
}

#endif
