#!/usr/bin/env bash
# Builds the engine-simulator image used by the container tests, without any registry: a root filesystem holding a
# jlink'ed Java runtime, the shared libraries it loads (copied from this machine), /bin/sh, our CLI jar, and shims
# named like the real images' launchers (`python3 -m sglang.launch_server …`, `vllm serve …`, `trtllm-serve …`), imported with
# `docker import`. Three tags come from the one filesystem:
#   profiled-rollout/simulator-sglang:<tag>  no entrypoint, like lmsysorg/sglang (the command is the launcher)
#   profiled-rollout/simulator-vllm:<tag>    ENTRYPOINT ["vllm","serve"], like vllm/vllm-openai
#   profiled-rollout/simulator-trtllm:<tag>  no entrypoint, like nvcr.io/nvidia/tensorrt-llm/release (trtllm-serve …)
# Usage: build-simulator-image.sh PATH/TO/profiled-rollout.jar [tag]
set -euo pipefail
jar=$(readlink -f "$1")
tag=${2:-latest}
[ -f "$jar" ] || { echo "no such jar: $jar (build it with: mvn -B -DskipTests package)" >&2; exit 2; }
command -v docker >/dev/null || { echo "docker is not installed" >&2; exit 2; }
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root"/{bin,tmp,opt/profiled-rollout,usr/local/bin,etc,profiles}
chmod 1777 "$root/tmp" "$root/profiles"

# A small runtime with what the shaded jar needs (HTTP server, HTTP client, logging, management, SQL for sqlite-jdbc).
"$java_home/bin/jlink" --add-modules java.se,jdk.httpserver,jdk.unsupported,jdk.crypto.ec,jdk.zipfs \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$root/opt/java"

cp "$jar" "$root/opt/profiled-rollout/profiled-rollout.jar"
cp /bin/dash "$root/bin/sh"

# Every shared library the runtime and the shell load, at the same paths as on this machine.
{ ldd /bin/dash; find "$root/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec ldd {} \; 2>/dev/null; } \
  | grep -oE '/[^ ]+\.so[^ ]*' | sort -u | while read -r lib; do
    [ -e "$lib" ] || continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "127.0.0.1 localhost" > "$root/etc/hosts"

shim() { # name, engine
  cat > "$root/usr/local/bin/$1" <<SH
#!/bin/sh
$2
exec /opt/java/bin/java -XX:+UseSerialGC -Xss512k -jar /opt/profiled-rollout/profiled-rollout.jar engine-shim "\$@"
SH
  chmod 755 "$root/usr/local/bin/$1"
}
# python3 -m sglang.launch_server ARGS  →  engine-shim sglang ARGS
shim python3 'if [ "$1" = "-m" ] && [ "$2" = "sglang.launch_server" ]; then shift 2; set -- sglang "$@"; else echo "simulator image: only python3 -m sglang.launch_server is supported, got: $*" >&2; exit 2; fi'
# vllm serve ARGS  →  engine-shim vllm ARGS
shim vllm 'if [ "$1" = "serve" ]; then shift; fi; set -- vllm "$@"'
# trtllm-serve ARGS  →  engine-shim trtllm ARGS
shim trtllm-serve 'set -- trtllm "$@"'

env_path='PATH=/usr/local/bin:/opt/java/bin:/bin'
tar -C "$root" -c . | docker import --change "ENV $env_path" --change 'WORKDIR /' \
  - "profiled-rollout/simulator-sglang:$tag" >/dev/null
tar -C "$root" -c . | docker import --change "ENV $env_path" --change 'WORKDIR /' \
  --change 'ENTRYPOINT ["vllm","serve"]' - "profiled-rollout/simulator-vllm:$tag" >/dev/null
tar -C "$root" -c . | docker import --change "ENV $env_path" --change 'WORKDIR /' \
  - "profiled-rollout/simulator-trtllm:$tag" >/dev/null
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep "profiled-rollout/simulator-"
