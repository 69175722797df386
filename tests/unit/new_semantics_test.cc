/* placeholder */
#include "test_support.h"
