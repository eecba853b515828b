# serve_web.sh: `gpuvet serve --web-config` in the exporter-toolkit's format: basic
# authentication (401 without or with a wrong password, 200 with the right one, bcrypt hashes),
# TLS with an openssl-made self-signed certificate (curl -k), both together, and bad files
# (unknown keys, a hash that is not bcrypt, a missing certificate, bad YAML) refused at start.
. "$TOP/tests/cli/lib.sh"
. "$TOP/tests/cli/serve_lib.inc"
need_tool curl "the HTTP answers"
need_tool jq "the --json lines"
M="$SCEN/monitor"
# bcrypt of "s3cret pass" at cost 5 (made with libcrypt's crypt_gensalt and crypt)
HASH='$2y$05$TIrZz6vbprZHTWFx6CzdHuyqy1Kl3lRXpvL5znW7FsQssg9ZOqPLC'

cat >"$TMP/auth.yml" <<YML
# basic authentication only
basic_auth_users:
  prometheus: '$HASH'
YML
if start_serve "basic auth" "$M/x2.json" --doctor-interval 0 --web-config "$TMP/auth.yml"; then
	code=$(curl -s -o /dev/null -D "$TMP/h.txt" -w '%{http_code}' "$URL/metrics")
	[ "$code" = 401 ] && pass "no credentials: 401" || fail "no credentials: 401" "$code"
	expect_grep "401 asks for basic auth" '^WWW-Authenticate: Basic realm="gpuvet"' "$TMP/h.txt"
	code=$(curl -s -o /dev/null -w '%{http_code}' -u 'prometheus:wrong' "$URL/metrics")
	[ "$code" = 401 ] && pass "wrong password: 401" || fail "wrong password: 401" "$code"
	code=$(curl -s -o /dev/null -w '%{http_code}' -u 'nobody:s3cret pass' "$URL/metrics")
	[ "$code" = 401 ] && pass "unknown user: 401" || fail "unknown user: 401" "$code"
	code=$(curl -s -o "$TMP/m.txt" -w '%{http_code}' -u 'prometheus:s3cret pass' "$URL/metrics")
	[ "$code" = 200 ] && pass "right password: 200" || fail "right password: 200" "$code"
	expect_grep "right password: the metrics" '^gpuvet_power_watts\{' "$TMP/m.txt"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")
	[ "$code" = 401 ] && pass "/healthz is protected too" || fail "/healthz is protected too" "$code"
	stop_serve "basic auth"
fi

if need_real openssl "TLS with a self-signed certificate"; then
	mkdir -p "$TMP/tls"
	if openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-keyout "$TMP/tls/server.key" -out "$TMP/tls/server.crt" >"$TMP/openssl.log" 2>&1; then
		pass "openssl makes a certificate"
	else
		fail "openssl makes a certificate" "$(head -c 300 "$TMP/openssl.log")"
	fi
	# relative file names: from the config file's folder
	cat >"$TMP/tls/web.yml" <<YML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: $HASH
YML
	if start_serve "tls" "$M/x2.json" --doctor-interval 0 --web-config "$TMP/tls/web.yml"; then
		URLS="https://$ADDR"
		expect_grep "start line says https" '"url":"https://127.0.0.1:[0-9]+/metrics"' "$TMP/serve.out"
		code=$(curl -sk -o "$TMP/m.txt" -w '%{http_code}' -u 'prometheus:s3cret pass' "$URLS/metrics")
		[ "$code" = 200 ] && pass "TLS with the password: 200" || fail "TLS with the password: 200" "$code"
		expect_grep "TLS: the metrics" '^gpuvet_power_watts\{' "$TMP/m.txt"
		code=$(curl -sk -o /dev/null -w '%{http_code}' "$URLS/metrics")
		[ "$code" = 401 ] && pass "TLS without the password: 401" || fail "TLS without the password: 401" "$code"
		code=$(curl -s --cacert "$TMP/tls/server.crt" -o /dev/null -w '%{http_code}' -u 'prometheus:s3cret pass' "$URLS/metrics")
		[ "$code" = 200 ] && pass "TLS verified against the certificate" || fail "TLS verified against the certificate" "$code"
		# plain HTTP to a TLS port gets no metrics
		code=$(curl -s -m 5 -o "$TMP/plain.txt" -w '%{http_code}' "$URL/metrics")
		if [ "$code" != 200 ] && ! grep -q gpuvet_ "$TMP/plain.txt" 2>/dev/null; then
			pass "plain HTTP on the TLS port: no metrics"; else fail "plain HTTP on the TLS port: no metrics" "$code"; fi
		code=$(curl -sk -o /dev/null -w '%{http_code}' -u 'prometheus:s3cret pass' "$URLS/metrics")
		[ "$code" = 200 ] && pass "still answers after a plain HTTP client" || fail "still answers after a plain HTTP client" "$code"
		stop_serve "tls"
	fi
	# a key that does not belong to the certificate
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other \
		-keyout "$TMP/tls/other.key" -out "$TMP/tls/other.crt" >/dev/null 2>&1
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n' >"$TMP/tls/mismatch.yml"
	expect_exit "key of another certificate" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/tls/mismatch.yml"
	expect_grep "key mismatch message" 'cannot start HTTPS with' "$TMP/err"
fi

# bad files: refused at start, naming the file and what is wrong
printf 'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_auth_type: RequireAndVerifyClientCert\n' >"$TMP/unknown-tls.yml"
expect_exit "unsupported TLS key" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/unknown-tls.yml"
expect_grep "unsupported TLS key message" "unknown-tls.yml: web config line 4: tls_server_config.client_auth_type is not supported" "$TMP/err"
printf 'http_server_config:\n  http2: true\n' >"$TMP/unknown.yml"
expect_exit "unknown top-level key" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/unknown.yml"
expect_grep "unknown key message" "line 1: unknown key 'http_server_config'" "$TMP/err"
printf 'basic_auth_users:\n  alice: plaintext\n' >"$TMP/plain.yml"
expect_exit "a password that is no bcrypt hash" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/plain.yml"
expect_grep "bcrypt message" "the password of 'alice' is not a bcrypt hash" "$TMP/err"
printf 'tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n' >"$TMP/missing.yml"
expect_exit "missing certificate" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/missing.yml"
expect_grep "missing certificate message" "cannot read the TLS certificate '/nonexistent.crt'" "$TMP/err"
printf 'tls_server_config:\n  cert_file: x.crt\n' >"$TMP/half.yml"
expect_exit "cert without key" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/half.yml"
printf 'basic_auth_users: [unclosed\n' >"$TMP/broken.yml"
expect_exit "not YAML" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/broken.yml"
expect_exit "no such web config" 4 "$GPUVET" --replay "$M/x2.json" serve --listen 127.0.0.1:0 --web-config "$TMP/nonexistent.yml"
: >"$TMP/empty.yml"
if start_serve "empty web config" "$M/x2.json" --doctor-interval 0 --web-config "$TMP/empty.yml"; then
	code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")
	[ "$code" = 200 ] && pass "an empty web config: plain HTTP" || fail "an empty web config: plain HTTP" "$code"
	stop_serve "empty web config"
fi
done_testing
