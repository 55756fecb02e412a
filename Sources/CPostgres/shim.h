#ifndef SLUICE_CPOSTGRES_SHIM_H
#define SLUICE_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

#endif
