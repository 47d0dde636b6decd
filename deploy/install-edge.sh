#!/bin/sh
# The mosquitto beside the service on a table's box, bridged to the venue's central broker
# (docs/OPERATIONS.md, "Store and forward across the venue network"):
#
#   sudo VENUE=grand-casino TABLE=t01 CENTRAL=broker.venue.lan \
#       sh deploy/install-edge.sh /etc/tablesvc/mqtt.pass /etc/tablesvc/ca.crt
#
# PASSWORD_FILE is the table's password on the central broker (the service's own
# mqtt.password_file: the same user logs in to both brokers); any character but a newline may
# be in it. CA_FILE is the venue CA's certificate. Run it again to change either.
#
#   VENUE, TABLE   the table's [table] venue and id (required); TABLE is its user
#   CENTRAL        the central broker's name, as its certificate names it (required)
#   CENTRAL_PORT   its TLS port (default 8883)
#   ETC            mosquitto's folder (default /etc/mosquitto)
#   OWNER          the user mosquitto runs as (default mosquitto)
#   PORT           the box's own listener on 127.0.0.1 (default 1883)
#
# Writes ETC/conf.d/tablesvc-edge.conf (0600: it holds the password), ETC/tablesvc.passwd
# (0600), ETC/tablesvc.acl (the table's lines only) and ETC/certs/ca.crt; then restart
# mosquitto.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 2 ] || [ -z "${VENUE:-}" ] || [ -z "${TABLE:-}" ] || [ -z "${CENTRAL:-}" ]; then
    echo "usage: VENUE=venue TABLE=t01 CENTRAL=broker.name $0 PASSWORD_FILE CA_FILE" >&2
    exit 2
fi
password_file=$1
ca_file=$2
etc=${ETC:-/etc/mosquitto}
owner=${OWNER:-mosquitto}
port=${PORT:-1883}
central_port=${CENTRAL_PORT:-8883}
case $etc in *[!A-Za-z0-9_./-]*) echo "$0: ETC '$etc': a plain path, please" >&2; exit 2 ;; esac
case $CENTRAL in "" | *[!A-Za-z0-9_.:-]*)
    echo "$0: CENTRAL '$CENTRAL': a host name or address" >&2; exit 2 ;; esac
umask 077
mkdir -p "$etc/conf.d" "$etc/certs"
# the table's ACL: checks VENUE and TABLE before anything is changed
sh "$here/venue-acl.sh" "$VENUE" "$TABLE" > "$etc/tablesvc.acl.new"

password=$(cat "$password_file")
case $password in
    *"
"*) echo "$0: $password_file: one line, the password" >&2; exit 2 ;;
    "" | " "* | *" " | "	"* | *"	")
        echo "$0: $password_file: a password that is not empty and neither begins nor ends" \
            "with a space (mosquitto's config would drop it)" >&2
        exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the config: the ids and names are plain (checked above); the password is written as it is,
# never through sed, whose replacement text reads / & and \ as its own
sed -e "s|/etc/mosquitto/|$etc/|g" \
    -e "s|^listener 1883 127.0.0.1\$|listener $port 127.0.0.1|" \
    -e "s|@VENUE@|$VENUE|g" -e "s|@TABLE@|$TABLE|g" \
    -e "s|@CENTRAL@:8883|$CENTRAL:$central_port|" \
    -e '/^remote_password /d' \
    "$here/mosquitto-edge.conf" > "$work/edge.conf"
if grep -v '^#' "$work/edge.conf" | grep -q '@[A-Z]*@'; then
    echo "$0: deploy/mosquitto-edge.conf has a placeholder this script does not fill" >&2
    exit 1
fi
# remote_password belongs to the bridge: after its "connection" line, which the file ends with
printf 'remote_password %s\n' "$password" >> "$work/edge.conf"

# the table's user on the box, hashed: the password goes to mosquitto_passwd on its input, as
# typed at its prompt (never on a command line, never split at a colon as its -U mode does)
: > "$work/passwd"
printf '%s\n%s\n' "$password" "$password" | mosquitto_passwd "$work/passwd" "$TABLE" \
    >/dev/null 2>&1 || { echo "$0: mosquitto_passwd refused the user $TABLE" >&2; exit 1; }

cp "$ca_file" "$etc/certs/ca.crt.new" && mv "$etc/certs/ca.crt.new" "$etc/certs/ca.crt"
mv "$work/passwd" "$etc/tablesvc.passwd"
mv "$work/edge.conf" "$etc/conf.d/tablesvc-edge.conf"
mv "$etc/tablesvc.acl.new" "$etc/tablesvc.acl"
chmod 0600 "$etc/tablesvc.passwd" "$etc/conf.d/tablesvc-edge.conf"
chmod 0644 "$etc/tablesvc.acl" "$etc/certs/ca.crt"
chmod 0755 "$etc/certs"
if [ "$(id -un)" != "$owner" ]; then
    chown "$owner" "$etc/tablesvc.passwd" "$etc/conf.d/tablesvc-edge.conf"
fi
echo "edge broker of $VENUE/$TABLE written to $etc, bridged to $CENTRAL:$central_port:" \
    "restart mosquitto (systemctl restart mosquitto)"
