# docker/cluster/haproxy.Dockerfile — haproxy from Debian's packages in front of
# the tessera servers of docker/compose.cluster.yaml (docker/cluster/haproxy.cfg).
FROM docker.io/library/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY docker/cluster/haproxy.cfg /etc/haproxy/haproxy.cfg
EXPOSE 8080
CMD ["haproxy", "-f", "/etc/haproxy/haproxy.cfg", "-db"]
