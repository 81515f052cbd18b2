# One image for every role: `gavel engine|arena|bot [flags]`.
# The build stage runs exactly the host build: scripts/install-deps.sh, then scripts/build.sh.
FROM debian:12 AS build
WORKDIR /src
COPY scripts/install-deps.sh scripts/
COPY k8s/validate/package.json k8s/validate/package-lock.json k8s/validate/
RUN bash scripts/install-deps.sh
COPY . .
RUN GAVEL_BUILD_DIR=/build bash scripts/build.sh \
 && bash scripts/runtime-files.sh /build /out

# The runtime stage: the binaries and the Debian packages of their shared libraries only.
FROM debian:12-slim
COPY --from=build /out/packages.txt /tmp/packages.txt
RUN apt-get update \
 && xargs -a /tmp/packages.txt apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/packages.txt \
 && useradd --system --uid 10001 --user-group --no-create-home gavel
COPY --from=build /out/bin/ /usr/local/bin/
COPY --from=build /out/share/ /usr/share/
USER 10001:10001
EXPOSE 50051 50061 9090
ENTRYPOINT ["gavel"]
# Plaintext for a quick local `docker run`; deployments pass --tls_cert and --tls_key instead
# of --insecure (k8s/engine.yaml).
CMD ["engine", "--listen=0.0.0.0:50051", "--insecure"]
