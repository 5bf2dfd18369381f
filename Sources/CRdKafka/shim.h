#ifndef CRDKAFKA_SHIM_H
#define CRDKAFKA_SHIM_H
// librdkafka from Debian's librdkafka-dev (>= 2.0.2 to build; >= 2.3 recommended at run time).
// Only this header is exposed to Swift; any tiny C helper lives here as a static inline function.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#endif
