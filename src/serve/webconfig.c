/* webconfig.c: the exporter-toolkit's web configuration for `gpuvet serve` (see webconfig.h). */
#define _GNU_SOURCE
#include "webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../util/util.h"

/* The whole file, or NULL with errno. */
static char *read_all(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = xmalloc(max + 1);
	n = fread(buf, 1, max + 1, f);
	if (ferror(f) || n > max) {
		int why = ferror(f) ? EIO : EFBIG;

		fclose(f);
		free(buf);
		errno = why;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static unsigned line_of(yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

/* "dir/name" unless name is absolute. */
static char *in_dir(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir || !dir[0])
		return xstrdup(name);
	return xasprintf("%s/%s", dir, name);
}

static int parse_tls(yaml_document_t *doc, yaml_node_t *map, const char *dir, struct webconfig *wc,
		     struct err *e)
{
	yaml_node_pair_t *p;

	if (map->type != YAML_MAPPING_NODE)
		return err_set(e, EXIT_USAGE, "web config line %u: tls_server_config must be a mapping",
			       line_of(map));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key = scalar(k), *val = scalar(v);

		if (!key)
			return err_set(e, EXIT_USAGE, "web config line %u: a key must be a string",
				       line_of(k));
		if (strcmp(key, "cert_file") == 0 || strcmp(key, "key_file") == 0) {
			char **dst = key[0] == 'c' ? &wc->cert_file : &wc->key_file;

			if (!val || !val[0])
				return err_set(e, EXIT_USAGE, "web config line %u: %s needs a file name",
					       line_of(v), key);
			free(*dst);
			*dst = in_dir(dir, val);
			continue;
		}
		err_set(e, EXIT_USAGE, "web config line %u: tls_server_config.%s is not supported by gpuvet",
			line_of(k), key);
		err_hint(e, "gpuvet reads cert_file and key_file; remove the other keys rather than have "
			    "them ignored");
		return -1;
	}
	if (!wc->cert_file || !wc->key_file)
		return err_set(e, EXIT_USAGE, "web config line %u: tls_server_config needs both "
					      "cert_file and key_file",
			       line_of(map));
	return 0;
}

static int parse_users(yaml_document_t *doc, yaml_node_t *map, struct webconfig *wc, struct err *e)
{
	yaml_node_pair_t *p;

	if (map->type == YAML_SCALAR_NODE && !map->data.scalar.value[0])
		return 0; /* "basic_auth_users:" with nothing under it */
	if (map->type != YAML_MAPPING_NODE)
		return err_set(e, EXIT_USAGE, "web config line %u: basic_auth_users must be a mapping of "
					      "user: bcrypt hash",
			       line_of(map));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *user = scalar(k), *hash = scalar(v);

		if (!user || !user[0] || strchr(user, ':'))
			return err_set(e, EXIT_USAGE, "web config line %u: a user name must be a string "
						      "without ':'",
				       line_of(k));
		/* bcrypt: $2a$, $2b$ or $2y$, a two-digit cost, 53 characters of salt and hash */
		if (!hash || strlen(hash) != 60 || hash[0] != '$' || hash[1] != '2' ||
		    !strchr("aby", hash[2]) || hash[3] != '$') {
			err_set(e, EXIT_USAGE, "web config line %u: the password of '%s' is not a bcrypt "
					       "hash",
				line_of(v), user);
			err_hint(e, "make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'");
			return -1;
		}
		wc->users = xrealloc(wc->users, (wc->nusers + 1) * sizeof(*wc->users));
		wc->users[wc->nusers].name = xstrdup(user);
		wc->users[wc->nusers].hash = xstrdup(hash);
		wc->nusers++;
	}
	return 0;
}

static int load_pem(const char *path, const char *what, char **out, struct err *e)
{
	size_t len;

	*out = read_all(path, 1024 * 1024, &len);
	if (!*out)
		return err_set(e, EXIT_USAGE, "cannot read the TLS %s '%s': %s", what, path,
			       strerror(errno));
	if (!strstr(*out, "-----BEGIN "))
		return err_set(e, EXIT_USAGE, "the TLS %s '%s' is not a PEM file", what, path);
	return 0;
}

int webconfig_parse(const char *text, size_t len, const char *dir, struct webconfig *wc,
		    struct err *e)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	int rc = 0;

	memset(wc, 0, sizeof(*wc));
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err_set(e, EXIT_USAGE, "web config line %u: %s", (unsigned)parser.problem_mark.line + 1,
			parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_SCALAR_NODE && !root->data.scalar.value[0])
		root = NULL; /* an empty document */
	if (root && root->type != YAML_MAPPING_NODE) {
		rc = err_set(e, EXIT_USAGE, "web config: the file must be a mapping of keys");
		root = NULL;
	}
	for (p = root ? root->data.mapping.pairs.start : NULL; root && rc == 0 && p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&doc, p->value);
		const char *key = scalar(k);

		if (key && strcmp(key, "tls_server_config") == 0) {
			rc = parse_tls(&doc, v, dir, wc, e);
		} else if (key && strcmp(key, "basic_auth_users") == 0) {
			rc = parse_users(&doc, v, wc, e);
		} else {
			rc = err_set(e, EXIT_USAGE, "web config line %u: unknown key '%s'", line_of(k),
				     key ? key : "?");
			err_hint(e, "gpuvet reads tls_server_config (cert_file, key_file) and "
				    "basic_auth_users");
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc == 0 && wc->cert_file)
		rc = load_pem(wc->cert_file, "certificate", &wc->cert_pem, e);
	if (rc == 0 && wc->key_file)
		rc = load_pem(wc->key_file, "key", &wc->key_pem, e);
	if (rc != 0)
		webconfig_free(wc);
	return rc;
}

int webconfig_load(const char *path, struct webconfig *wc, struct err *e)
{
	size_t len;
	char *text = read_all(path, 1024 * 1024, &len), *dir, *slash;
	int rc;

	memset(wc, 0, sizeof(*wc));
	if (!text)
		return err_set(e, EXIT_USAGE, "cannot read the web config '%s': %s", path,
			       strerror(errno));
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	rc = webconfig_parse(text, len, dir, wc, e);
	if (rc != 0) {
		char msg[sizeof(e->msg)];

		/* name the file: "web config line 3" alone does not say which */
		str_copy(msg, e->msg, sizeof(msg));
		str_fmt(e->msg, sizeof(e->msg), "%s: %s", path, msg);
	}
	free(dir);
	free(text);
	return rc;
}

void webconfig_free(struct webconfig *wc)
{
	size_t i;

	for (i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->cert_pem);
	free(wc->cert_file);
	free(wc->key_file);
	memset(wc, 0, sizeof(*wc));
}

/* Compare without stopping at the first difference. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

bool webconfig_check(const struct webconfig *wc, const char *user, const char *password)
{
	struct crypt_data *cd;
	const char *hash = NULL, *out;
	bool ok;
	size_t i;

	if (!wc->nusers)
		return false;
	for (i = 0; i < wc->nusers; i++)
		if (strcmp(wc->users[i].name, user) == 0)
			hash = wc->users[i].hash;
	cd = xcalloc(1, sizeof(*cd));
	/* an unknown user costs a bcrypt run too (against the first user's hash), and fails */
	out = crypt_r(password, hash ? hash : wc->users[0].hash, cd);
	ok = hash && out && out[0] != '*' && same(out, hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}
