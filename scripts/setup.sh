#!/usr/bin/env bash
# desktop_agent set-up: one script, two modes.
#
#   bash scripts/setup.sh run    install everything, then start the app on the default models
#   bash scripts/setup.sh test   install everything the tests need, then run the whole test suite
#   bash scripts/setup.sh bundle [--with-models]   install, then build the one-folder app
#                                dist/desktop-agent/ with PyInstaller (pinned, hash-checked)
#   bash scripts/setup.sh desktop-entry   install, then add the app to the desktop's menu
#
# Idempotent: a second run checks stamps and changes nothing. Works as root (installs Debian
# packages with apt-get) and as a normal user (uses sudo -n if allowed, otherwise prints the exact
# apt-get command to run and stops).
#
# Environment: PYTHON (interpreter to build the venv from, default python3),
# DESKTOP_AGENT_VENV (default: <repo>/.venv), PYTEST_ARGS (extra pytest arguments in test mode),
# DESKTOP_AGENT_BUILD_LLAMA_SERVER=1 (build llama.cpp's llama-server in every mode, not only test).
set -euo pipefail

MODE="${1:-run}"
shift || true
case "$MODE" in run | test | install | bundle | desktop-entry) ;; *)
    echo "usage: bash scripts/setup.sh [run|test|install|bundle [--with-models]|desktop-entry]" >&2
    exit 64
    ;;
esac

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
VENV="${DESKTOP_AGENT_VENV:-$REPO/.venv}"
PY="${PYTHON:-python3}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/desktop_agent"
LLAMA_VERSION="0.3.36"
# Portable CPU flags: the default native build uses AMX here and dies with SIGILL.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF"
# llama.cpp's own server, from the llama.cpp the same sdist vendors, with the flags above plus:
# static libraries (one self-contained binary), no web UI (its prebuilt assets would be
# downloaded at build time), no HTTPS (it serves loopback), nothing else built.
LLAMA_SERVER_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF"
# The tests need it (tests/adapters/llm/test_llm_openai_real.py); the app only with llm.backend =
# "server" on this computer, so run/install skip the build (10-20 minutes on 2 cores) unless asked.
WANT_SERVER=0
{ [ "$MODE" = test ] || [ "${DESKTOP_AGENT_BUILD_LLAMA_SERVER:-0}" = 1 ]; } && WANT_SERVER=1

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
die() {
    printf '\033[31m[setup] %s\033[0m\n' "$*" >&2
    exit 1
}

# The llama-cpp-python sdist, downloaded once: the wheel and the server are built from this
# file. Prints its path (everything else goes to stderr); call it as sdist=$(llama_sdist).
llama_sdist() {
    local dir="$CACHE/sdist" name="llama_cpp_python-$LLAMA_VERSION.tar.gz"
    if [ ! -f "$dir/$name" ]; then
        say "downloading the llama-cpp-python $LLAMA_VERSION sdist (76 MB)" >&2
        rm -rf "$dir.tmp" && mkdir -p "$dir"
        "${PIP[@]}" download --quiet --no-binary :all: --no-deps -d "$dir.tmp" \
            "llama-cpp-python==$LLAMA_VERSION" >&2 || die "downloading the llama-cpp-python sdist failed (see above)"
        mv "$dir.tmp/$name" "$dir/" && rm -rf "$dir.tmp"
    fi
    echo "$dir/$name"
}

# Build llama-server from the sdist's vendor/llama.cpp into $2 (atomically), and check it runs.
build_llama_server() {
    local sdist="$1" out="$2" work log=/tmp/desktop_agent-llama-server.log t0=$SECONDS
    say "building llama.cpp's llama-server from the same sdist (portable CPU flags; 10-20 minutes on 2 cores, once)"
    # Outside the repository: llama.cpp's cmake asks git for a commit and would read ours.
    work=$(mktemp -d "${TMPDIR:-/tmp}/desktop_agent-llama-server.XXXXXX")
    tar -xzf "$sdist" -C "$work" "llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp" ||
        die "unpacking $sdist failed; delete it and run this script again"
    # shellcheck disable=SC2086
    if ! { cmake -S "$work/llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp" -B "$work/build" \
        $LLAMA_CMAKE_ARGS $LLAMA_SERVER_CMAKE_ARGS &&
        CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" cmake --build "$work/build" --target llama-server; } >"$log" 2>&1; then
        rm -rf "$work"
        die "building llama-server failed (log: $log)"
    fi
    # A binary this CPU cannot run (SIGILL) fails here, not in the tests.
    "$work/build/bin/llama-server" --version >>"$log" 2>&1 ||
        { rm -rf "$work"; die "the llama-server just built does not run on this computer (log: $log)"; }
    install -m 755 "$work/build/bin/llama-server" "$out.tmp" && mv "$out.tmp" "$out"
    rm -rf "$work"
    say "built llama-server in $((SECONDS - t0)) s ($(du -h "$out" | cut -f1))"
}

# --- 1. Debian packages ------------------------------------------------------------------
# Runtime: libspeexdsp1 (echo canceller, bound with ctypes), libportaudio2 (sounddevice),
# Qt's xcb platform libraries, xvfb (a real window with no screen: tests, screenshots),
# pulseaudio (virtual devices for the audio tests). Build: cmake + g++ for llama.cpp.
# Tests: xdotool (keys typed into Xvfb: the screen-reader tests, the global push-to-talk key
# under X11), dbus-daemon, at-spi2-core, python3-gi, gir1.2-atspi-2.0 (the screen-reader
# view through AT-SPI), desktop-file-utils (the menu entry), real recorded voices (asterisk,
# pocketsphinx-testdata: eval asr). xclip: "read this to me" reads the selection and "copy
# that" fills the clipboard through it (X11; Wayland uses wl-clipboard when installed).
# Real recorded voices with their texts (eval asr, endpointing tests): asterisk-core-sounds-en(-wav),
# pocketsphinx-testdata.
APT_PKGS=(libspeexdsp1 libportaudio2 libasound2-plugins pulseaudio pulseaudio-utils xvfb xauth
    libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-xinerama0
    libxcb-randr0 libxcb-shape0 libxcb-xkb1 libxcb-cursor0 libxkbcommon-x11-0 libxkbcommon0
    libegl1 libgl1 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-dejavu-core
    xdotool dbus-daemon at-spi2-core python3-gi gir1.2-atspi-2.0 desktop-file-utils xclip
    cmake g++ make git asterisk-core-sounds-en-wav asterisk-core-sounds-en pocketsphinx-testdata)
# Tests only: the desktop portal (Debian 12: 1.16, with GlobalShortcuts) and python3-dbusmock, a
# fake desktop behind it (tests/adapters/desktop/portal_desktop.py); xdg-utils (xdg-open, the
# tests of "open example dot org" with a private mimeapps.list). Not for run/install: the
# user's desktop brings its own portal and xdg-open. xterm: a real terminal that text is typed
# into (the typing and dictation tests). sway, foot, wtype and wl-clipboard: a headless
# Wayland desktop that text is typed into and selections are read from (Wayland's tests).
if [ "$MODE" = test ]; then
    APT_PKGS+=(xdg-desktop-portal python3-dbusmock xdg-utils xterm sway foot wtype wl-clipboard)
fi
if ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then APT_PKGS+=(python3-venv); fi

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${APT_PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
else
    say "not a Debian-like system: install the equivalents of ${APT_PKGS[*]} yourself"
fi
if ((${#missing[@]})); then
    cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then
        say "installing Debian packages: ${missing[*]}"
        bash -c "$cmd" >/tmp/desktop_agent-apt.log 2>&1 || die "apt-get failed (log: /tmp/desktop_agent-apt.log)"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        say "installing Debian packages with sudo: ${missing[*]}"
        sudo bash -c "$cmd" >/tmp/desktop_agent-apt.log 2>&1 || die "apt-get failed (log: /tmp/desktop_agent-apt.log)"
    else
        die "These Debian packages are missing: ${missing[*]}
Run this as root, then run this script again:
    sudo bash -c '$cmd'"
    fi
fi

# --- 2. The virtual environment ------------------------------------------------------------
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "Python 3.11 or newer is needed ($PY is $("$PY" -V 2>&1)). Set PYTHON=/path/to/python3.11."
if [ ! -x "$VENV/bin/python" ]; then
    say "creating the virtual environment $VENV"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade "pip>=24" wheel
fi
VPY="$VENV/bin/python"
PIP=("$VPY" -m pip --disable-pip-version-check)

# Everything the install depends on; when unchanged, steps 3-5 are skipped (unless a
# llama-server is wanted and the venv has none).
STAMP="$VENV/.desktop_agent-$MODE.stamp"
[ "$MODE" = run ] && STAMP="$VENV/.desktop_agent-install.stamp"
case "$MODE" in install | bundle | desktop-entry) STAMP="$VENV/.desktop_agent-install.stamp" ;; esac
want=$(cat pyproject.toml models/requirements-*.txt models/manifest.toml scripts/setup.sh | sha256sum | cut -c1-32)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] &&
    { [ $WANT_SERVER = 0 ] || [ -x "$VENV/bin/llama-server" ]; }; then
    say "dependencies and models are up to date"
else
    # --- 3. llama.cpp: source-only; built once with portable flags, then cached -------------
    # The cache key covers the version, the flags and the interpreter (the wheel's ABI).
    key=$(printf '%s %s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" "$("$VPY" -c 'import sys; print(sys.version)')" | sha256sum | cut -c1-12)
    wheeldir="$CACHE/wheels/llama-$key"
    if ! "$VPY" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
        if ! ls "$wheeldir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
            sdist=$(llama_sdist)
            say "building llama-cpp-python $LLAMA_VERSION (portable CPU flags; about 5 minutes on 2 cores)"
            mkdir -p "$wheeldir"
            CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
                "${PIP[@]}" wheel --quiet --no-cache-dir --no-deps -w "$wheeldir.tmp" \
                "$sdist" || die "building llama-cpp-python failed (see above)"
            mv "$wheeldir.tmp"/llama_cpp_python-*.whl "$wheeldir"/ && rm -rf "$wheeldir.tmp"
        fi
        "${PIP[@]}" install --quiet "$wheeldir"/llama_cpp_python-*.whl
    fi
    if [ $WANT_SERVER = 1 ]; then
        # Cached beside the wheel, named by its own flags too; copied (not linked) into the venv.
        server="$wheeldir/llama-server-$(printf '%s' "$LLAMA_SERVER_CMAKE_ARGS" | sha256sum | cut -c1-8)"
        if ! cmp -s "$server" "$VENV/bin/llama-server"; then
            if [ ! -x "$server" ]; then
                mkdir -p "$wheeldir"
                sdist=$(llama_sdist)
                build_llama_server "$sdist" "$server"
            fi
            install -m 755 "$server" "$VENV/bin/llama-server"
            say "installed $VENV/bin/llama-server"
        fi
    fi
    # --- 4. Python dependencies (pinned in pyproject.toml) ----------------------------------
    extras="[mcp]"  # your own tools (MCP servers): imported only when one is configured
    [ "$MODE" = test ] && extras="[mcp,test]"
    say "installing Python dependencies"
    "${PIP[@]}" install --quiet -e ".$extras"
    # --- 5. Model weights from registry packages, hash-checked --------------------------------
    say "installing the default models (hash-checked)"
    "${PIP[@]}" install --quiet --no-deps --require-hashes -r models/requirements-default.txt
    if [ "$MODE" = test ]; then
        "${PIP[@]}" install --quiet --no-deps --require-hashes -r models/requirements-test.txt
    fi
    echo "$want" >"$STAMP"
fi

# --- 6. Assemble split models into the user data dir and verify every checksum --------------
"$VENV/bin/desktop-agent" models prepare || die "the models are not ready (see above)"

# --- 7. Go ----------------------------------------------------------------------------------
case "$MODE" in
install)
    say "installed. Start the app with: $VENV/bin/desktop-agent"
    ;;
desktop-entry)
    exec "$VENV/bin/desktop-agent" install-desktop-entry
    ;;
bundle)
    models=0
    for arg in "$@"; do
        case "$arg" in --with-models) models=1 ;; *) die "bundle: unknown option $arg (only --with-models)" ;; esac
    done
    name=desktop-agent
    [ $models = 1 ] && name=desktop-agent-with-models
    say "installing PyInstaller (pinned, hash-checked: packaging/requirements-bundle.txt)"
    "${PIP[@]}" install --quiet --no-deps --require-hashes -r packaging/requirements-bundle.txt
    say "building dist/$name/ (one folder; a few minutes on 2 cores)"
    rm -rf "dist/$name"
    DESKTOP_AGENT_BUNDLE_NAME="$name" DESKTOP_AGENT_BUNDLE_MODELS="$models" \
        "$VPY" -m PyInstaller --noconfirm --log-level WARN --distpath "$REPO/dist" \
        --workpath "$REPO/build/$name" packaging/desktop_agent.spec >/tmp/desktop_agent-bundle.log 2>&1 ||
        die "PyInstaller failed (log: /tmp/desktop_agent-bundle.log)"
    "$VPY" packaging/licences.py --out "dist/$name/THIRD_PARTY_LICENSES.txt" --bundle "dist/$name"
    "$VPY" packaging/min_glibc.py "dist/$name" --top 3
    [ $models = 1 ] && say "the default models are inside: dist/$name/_internal/models/<id>/ (checked against their sha256 at first start)"
    say "built dist/$name/: $(du -sh "dist/$name" | cut -f1). Start it with dist/$name/desktop-agent;"
    say "add it to the menu with: dist/$name/desktop-agent install-desktop-entry"
    ;;
run)
    say "starting desktop_agent"
    set +e
    "$VENV/bin/desktop-agent" "$@"
    rc=$?
    # 3 = no display: the app explained what to do instead; the install itself succeeded.
    [ $rc = 3 ] && exit 0
    exit $rc
    ;;
test)
    say "running the test suite"
    export QT_QPA_PLATFORM=offscreen
    # shellcheck disable=SC2086
    exec "$VPY" -m pytest ${PYTEST_ARGS:-} "$@"
    ;;
esac
