#!/bin/sh
# A venue's own TLS: a CA, and a certificate for the broker signed by it (openssl).
#
#   deploy/make-certs.sh OUTDIR BROKER_NAME [BROKER_IP ...]
#
# writes OUTDIR/ca.crt (give it to every table and consumer: mqtt.ca_file), OUTDIR/ca.key
# (keep it offline: it signs certificates), OUTDIR/server.crt and OUTDIR/server.key (the
# broker's, for /etc/mosquitto/certs/). BROKER_NAME is the name clients connect to (the
# certificate names it, and clients check it); add the IP addresses they may use instead.
# An existing CA in OUTDIR is reused, so a second broker (or a renewal) is signed by the
# same CA and the tables need no new ca.crt.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 OUTDIR BROKER_NAME [BROKER_IP ...]" >&2
    exit 2
fi
out=$1
name=$2
shift 2
umask 077
mkdir -p "$out"
if [ ! -f "$out/ca.key" ]; then
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 \
        -days 3650 -subj "/CN=tablesvc venue CA" \
        -keyout "$out/ca.key" -out "$out/ca.crt" 2>/dev/null
fi
san="DNS:$name"
for ip in "$@"; do
    san="$san,IP:$ip"
done
ext="$out/server.ext"
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n' \
    "$san" > "$ext"
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 \
    -subj "/CN=$name" -keyout "$out/server.key" -out "$out/server.csr" 2>/dev/null
openssl x509 -req -in "$out/server.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" \
    -CAcreateserial -days 825 -sha256 -extfile "$ext" -out "$out/server.crt" 2>/dev/null
rm -f "$out/server.csr" "$ext"
chmod 0644 "$out/ca.crt" "$out/server.crt"
echo "$out/ca.crt, $out/server.crt and $out/server.key for $san"
