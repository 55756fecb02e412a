#ifndef SLUICE_CLIBYAML_SHIM_H
#define SLUICE_CLIBYAML_SHIM_H

#include <yaml.h>

#endif
