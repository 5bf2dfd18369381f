#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H
// libnghttp2 from Debian's libnghttp2-dev (1.52 tested), driven in memory mode from SalvoHTTP2.
#include <nghttp2/nghttp2.h>
#include "salvo_pool_allocator.h"
#endif
