// The declaration in include/FuzzDriver.h is the whole module; libFuzzer defines the function.
#include "FuzzDriver.h"
