#!/bin/sh
# Run by the nginx image's entrypoint before nginx starts (compose.yaml mounts it into
# /docker-entrypoint.d/). nginx will not start on `listen 443 ssl` without a certificate, so when
# /etc/nginx/tls holds none this makes a self-signed one: the reference deployment then starts as
# written, and browsers warn until you mount your own fullchain.pem and privkey.pem there.
set -eu
dir=/etc/nginx/tls
if [ -s "$dir/fullchain.pem" ] && [ -s "$dir/privkey.pem" ]; then
  exit 0
fi
name=${TLS_SELF_SIGNED_NAME:-localhost}
echo "$0: no certificate in $dir; making a self-signed one for $name (mount yours there instead)" >&2
openssl req -x509 -newkey rsa:2048 -nodes -days 90 -subj "/CN=$name" -addext "subjectAltName=DNS:$name" \
  -keyout "$dir/privkey.pem" -out "$dir/fullchain.pem"
chmod 600 "$dir/privkey.pem"
