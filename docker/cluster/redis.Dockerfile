# docker/cluster/redis.Dockerfile — Redis 7 from Debian's packages, pub/sub only
# (nothing is stored: no snapshots, no append-only file).
FROM docker.io/library/debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
USER redis
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
