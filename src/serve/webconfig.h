/*
 * webconfig.h: `gpuvet serve --web-config FILE`, the Prometheus exporter-toolkit's web
 * configuration (https://prometheus.io/docs/prometheus/latest/configuration/https/) read with
 * libyaml: TLS (tls_server_config: cert_file, key_file) and basic authentication
 * (basic_auth_users: user: bcrypt hash), checked with libcrypt's crypt_r.
 *
 * A key gpuvet does not implement is an error at start, never ignored: a security setting that
 * silently does nothing is worse than none. Relative file names are taken from the file's own
 * folder, as the exporter-toolkit does. Nothing here prints.
 */
#ifndef GPUVET_SERVE_WEBCONFIG_H
#define GPUVET_SERVE_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

struct webconfig_user {
	char *name;
	char *hash; /* "$2y$10$...": bcrypt */
};

struct webconfig {
	char *cert_pem, *key_pem; /* the files' contents; NULL without TLS */
	char *cert_file, *key_file;
	struct webconfig_user *users;
	size_t nusers;
};

/* Read and check path; the certificate and key files are read too. -1 with e (exit code
 * EXIT_USAGE for a bad file, naming the key and line). Free with webconfig_free. */
int webconfig_load(const char *path, struct webconfig *wc, struct err *e);
/* Parse YAML text (dir: the folder relative file names are taken from). */
int webconfig_parse(const char *text, size_t len, const char *dir, struct webconfig *wc,
		    struct err *e);
void webconfig_free(struct webconfig *wc);
/* Do user and password match one of the users? Takes bcrypt's time (tens of ms) when the user
 * exists, and as long when it does not, so a scan cannot tell names apart. */
bool webconfig_check(const struct webconfig *wc, const char *user, const char *password);

#endif
