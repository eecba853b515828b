/*
 * scrub.h: `gpuvet record --scrub`, taking out of a recording what identifies a person or a
 * site before it is sent to someone else. scrub.c, scrub_learn.c and scrub_addr.c do the work
 * on the jansson document that recording.c builds; docs/scenarios.md ("Scrubbed recordings") lists
 * what is replaced.
 */
#ifndef GPUVET_SCRUB_H
#define GPUVET_SCRUB_H

#include <jansson.h>
#include <stddef.h>

/*
 * Replace, in place, user and group names, host and domain names, IP and MAC addresses,
 * UUIDs, serial numbers, process arguments, and the parts of the kernel command line and of
 * the apt history that name people or places. The same input gives the same placeholder
 * everywhere in doc ("user1", "host1", "192.0.2.1", ...), so relations between files stay
 * and the recording still replays to the same doctor findings.
 */
void scrub_recording(json_t *doc);

/*
 * The recognisers behind it, exported for the unit tests. Each returns the length of the
 * address (or UUID) that starts at text[at], or 0 when none does; text is the whole string,
 * because the characters before at decide whether a match may start there ("v1.2.3.4",
 * "==9.19.0.56" and "name-1.2.3.4" are versions, not addresses).
 */
size_t scrub_ipv4_at(const char *text, size_t at);
size_t scrub_ipv6_at(const char *text, size_t at);
size_t scrub_mac_at(const char *text, size_t at);
size_t scrub_uuid_at(const char *text, size_t at);

#endif
