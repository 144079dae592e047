# docker/cluster/postgres.Dockerfile — PostgreSQL 15 from Debian's packages for
# the cluster compose file (docker/compose.cluster.yaml). The cluster is made
# by initdb as the user postgres on the first start, in the volume; it listens
# on the compose network, trusting it (a throwaway cluster for trying tessera
# out: give it a password and TLS before anything else reaches it).
FROM docker.io/library/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o postgres -g postgres /var/lib/tessera-pg
USER postgres
VOLUME /var/lib/tessera-pg
EXPOSE 5432
CMD ["bash", "-c", "set -e; D=/var/lib/tessera-pg/data; B=/usr/lib/postgresql/15/bin; if [ ! -f $D/PG_VERSION ]; then $B/initdb -D $D -U tessera -A trust -E UTF8 --locale=C.UTF-8 >/dev/null; echo \"host all all 0.0.0.0/0 trust\" >> $D/pg_hba.conf; $B/pg_ctl -D $D -w start -o '-c listen_addresses=127.0.0.1' >/dev/null; $B/createdb -U tessera tessera; $B/pg_ctl -D $D -w stop >/dev/null; fi; exec $B/postgres -D $D -c listen_addresses='*' -c max_connections=200"]
