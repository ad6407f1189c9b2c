#ifndef LIVESTATE_CEVENT_SHIM_H
#define LIVESTATE_CEVENT_SHIM_H
// Included first: libevent's event-config.h defines _GNU_SOURCE, which otherwise
// clashes with Glibc's fd_set when a Swift file also imports Foundation.
#include <sys/select.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <event2/dns.h>
#include <event2/listener.h>

// glibc's malloc_trim and mallinfo2 (LibEvent's Allocator): returning freed pages after clients leave.
#include <malloc.h>

#endif
