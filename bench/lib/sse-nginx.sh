# Sourced by bench scripts: a static OpenAI-style streamed completion served by nginx on loopback, a server that
# answers at once, to measure the load generator against.
#
# sse_body FILE PROMPT_TOKENS: writes 128 completion chunks of one token, the usage chunk, [DONE]
# sse_nginx_start WORK PORT WORKERS: serves WORK/body.sse for POST /v1/completions (nginx answers a POST to a static
#   file with 405; error_page turns that into the file), in the background; sets SSE_NGINX_PID and waits until it
#   answers. WORK must be readable by nginx's unprivileged workers.

sse_body() {
  local file=$1 prompt=$2 i
  {
    for i in $(seq 128); do
      printf 'data: {"id":"cmpl-b","object":"text_completion","created":1,"model":"bench","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null}],"usage":null}\n\n'
    done
    printf 'data: {"id":"cmpl-b","object":"text_completion","created":1,"model":"bench","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":128,"total_tokens":%d}}\n\n' "$prompt" $((prompt + 128))
    printf 'data: [DONE]\n\n'
  } > "$file"
}

sse_nginx_start() {
  local work=$1 port=$2 workers=$3
  mkdir -p "$work/logs"
  cat > "$work/nginx.conf" <<CONF
daemon off;
worker_processes $workers;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/body_temp;
  keepalive_requests 10000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:$port;
    location /v1/completions { root $work; try_files /body.sse =404; default_type text/event-stream; error_page 405 =200 \$uri; }
    location = /body.sse { internal; root $work; default_type text/event-stream; }
  }
}
CONF
  nginx -c "$work/nginx.conf" -p "$work" &
  SSE_NGINX_PID=$!
  local _
  for _ in $(seq 50); do
    curl -fs -o /dev/null -X POST "http://127.0.0.1:$port/v1/completions" -d '{}' && return 0
    sleep 0.1
  done
  echo "nginx did not answer on 127.0.0.1:$port; see $work/logs/error.log" >&2
  return 1
}
