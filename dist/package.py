"""Builds acldump's release artifacts (SDK tarball, wheel, jar, Go module) from Bazel outputs,
reproducibly.

    package.py sdk --version 1.0.0 --out acldump-1.0.0-linux-x86_64.tar.gz --lib libacldump.so.1.0.0
        --header include/acl/acl.h ... --bin acldump=tools/dump --bin acldump-convert=tools/convert
        --share testdata/resnet_tiny.om=... --doc README.md=... --doc LICENSE=...

Every archive has its members in name order, with fixed owners, modes and times, so two builds of
the same inputs give the same bytes. The binaries come with abseil, protobuf, fmt and Highway linked
in statically (//dist links them against @pic_deps); packaging refuses one that still needs any of
their shared libraries.
"""

import argparse
import base64
import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

# Libraries the release links statically: no packaged binary may need their shared libraries.
# What a binary needs from the system is the C/C++ runtime (libc, libm, libstdc++, libgcc_s,
# libgomp), oneDNN (libdnnl, with its libOpenCL loader) and zlib.
STATIC = re.compile(r"^lib(absl_[a-z0-9_]+|protobuf|protobuf-lite|fmt|hwy)\.so")
# A fixed time (2020-01-01) for every member: zip cannot store times before 1980.
FIXED_TIME = 1577836800


def fail(message):
    sys.exit("package.py: error: " + message)


def run(*args):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail("%s failed (%d): %s" % (" ".join(args), result.returncode, result.stderr.strip()))
    return result.stdout


def needed(path):
    """The DT_NEEDED names of an ELF file."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run("readelf", "-d", path))


def check_static(path):
    """Fails when a packaged binary needs a shared library the release links statically."""
    dynamic = [name for name in needed(path) if STATIC.match(name)]
    if dynamic:
        fail("%s needs %s: it must be linked against @pic_deps's static archives"
             % (os.path.basename(path), ", ".join(dynamic)))


def install_binary(source, target, rpath=None):
    shutil.copyfile(source, target)
    os.chmod(target, 0o755)
    run("strip", "--strip-debug", target)
    if rpath is not None:
        run("patchelf", "--set-rpath", rpath, target)
    check_static(target)


def write_text(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def copy_file(source, target, mode=0o644):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)
    os.chmod(target, mode)


def pairs(values, what):
    result = []
    for value in values:
        if "=" not in value:
            fail("%s takes DEST=SOURCE, not %r" % (what, value))
        dest, source = value.split("=", 1)
        result.append((dest, source))
    return result


def deterministic_tar(root, top, out):
    """A .tar.gz of root (as folder `top`), members sorted, owner root, fixed times."""
    members = []
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs + files):
            members.append(os.path.join(directory, name))
    members.sort(key=lambda p: os.path.relpath(p, root))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:

        def add(path, arcname):
            info = tar.gettarinfo(path, arcname)
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = FIXED_TIME
            if info.isreg():
                info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                info.mode = 0o755 if info.isdir() else 0o777
                tar.addfile(info)

        add(root, top)
        for path in members:
            add(path, top + "/" + os.path.relpath(path, root))
    with open(out, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as gz:
            gz.write(buffer.getvalue())


PC_TEMPLATE = """\
# pkg-config file of the acldump SDK; relocatable (paths relative to this file).
prefix=${{pcfiledir}}/../..
libdir=${{prefix}}/lib
includedir=${{prefix}}/include

Name: acldump
Description: Inference runtime with model dump, behind the ACL C API (acl/acl.h)
Version: {version}
Libs: -L${{libdir}} -lacldump
Libs.private: -ldnnl -lgomp -lpthread
Cflags: -I${{includedir}}
"""

CMAKE_CONFIG_TEMPLATE = """\
# find_package(acldump CONFIG) for the acldump SDK: defines the imported target acldump::acldump.
# The library needs oneDNN (libdnnl.so.2) and the OpenMP runtime (libgomp.so.1) from the system.
get_filename_component(_acldump_prefix "${{CMAKE_CURRENT_LIST_DIR}}/../../.." ABSOLUTE)
if(NOT TARGET acldump::acldump)
  add_library(acldump::acldump SHARED IMPORTED)
  set_target_properties(acldump::acldump PROPERTIES
    IMPORTED_LOCATION "${{_acldump_prefix}}/lib/libacldump.so.{version}"
    IMPORTED_SONAME "{soname}"
    INTERFACE_INCLUDE_DIRECTORIES "${{_acldump_prefix}}/include")
endif()
set(acldump_VERSION "{version}")
set(acldump_INCLUDE_DIRS "${{_acldump_prefix}}/include")
set(acldump_LIBRARIES acldump::acldump)
unset(_acldump_prefix)
"""

# What CMake's write_basic_package_version_file(... COMPATIBILITY SameMajorVersion) writes.
CMAKE_VERSION_TEMPLATE = """\
# acldump {version}: compatible with requests for the same major version, not newer.
set(PACKAGE_VERSION "{version}")
if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  if(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "{major}")
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
    if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
      set(PACKAGE_VERSION_EXACT TRUE)
    endif()
  endif()
endif()
if(NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  set(PACKAGE_VERSION "{version} (64bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
"""


def build_sdk(args):
    version = args.version
    major = version.split(".")[0]
    soname = "libacldump.so." + major
    top = "acldump-%s-linux-x86_64" % version
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, top)
        lib = os.path.join(root, "lib")
        os.makedirs(lib)
        real = "libacldump.so." + version
        install_binary(args.lib, os.path.join(lib, real))
        if soname not in run("readelf", "-d", os.path.join(lib, real)):
            fail("%s does not carry the SONAME %s" % (args.lib, soname))
        os.symlink(real, os.path.join(lib, soname))
        os.symlink(soname, os.path.join(lib, "libacldump.so"))
        # Programs built for the SDK link -lascendcl; they then need libacldump.so.<major>.
        os.symlink(soname, os.path.join(lib, "libascendcl.so"))
        os.makedirs(os.path.join(root, "bin"))
        for dest, source in pairs(args.bin, "--bin"):
            install_binary(source, os.path.join(root, "bin", dest))
        for header in args.header:
            relative = header[header.index("include/acl/") + len("include/"):]
            copy_file(header, os.path.join(root, "include", relative))
        for dest, source in pairs(args.share, "--share"):
            copy_file(source, os.path.join(root, "share", "acldump", dest))
        for dest, source in pairs(args.doc, "--doc"):
            copy_file(source, os.path.join(root, dest))
        # The NPU SDK's install layout as well, for build scripts written for it (the samples'
        # CMakeLists read $INSTALL_DIR or $DDK_PATH/runtime/include and link ascendcl from
        # runtime/lib64/stub), and its set_env.sh.
        runtime = os.path.join(root, "runtime")
        os.makedirs(os.path.join(runtime, "lib64", "stub"))
        os.symlink(os.path.join("..", "include"), os.path.join(runtime, "include"))
        os.symlink(os.path.join("..", "..", "lib", "libascendcl.so"),
                   os.path.join(runtime, "lib64", "libascendcl.so"))
        os.symlink(os.path.join("..", "..", "..", "lib", "libascendcl.so"),
                   os.path.join(runtime, "lib64", "stub", "libascendcl.so"))
        write_text(os.path.join(root, "set_env.sh"), SET_ENV)
        write_text(os.path.join(lib, "pkgconfig", "acldump.pc"), PC_TEMPLATE.format(version=version))
        cmake = os.path.join(lib, "cmake", "acldump")
        write_text(os.path.join(cmake, "acldumpConfig.cmake"),
                   CMAKE_CONFIG_TEMPLATE.format(version=version, soname=soname))
        write_text(os.path.join(cmake, "acldumpConfigVersion.cmake"),
                   CMAKE_VERSION_TEMPLATE.format(version=version, major=major))
        deterministic_tar(root, top, args.out)


SET_ENV = """\
# source set_env.sh: the environment the NPU SDK's set_env.sh gives build scripts and programs
# written for it (ASCEND_TOOLKIT_HOME, DDK_PATH, NPU_HOST_LIB, the library and tool paths), for
# this acldump release.
_acldump_home="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export ASCEND_TOOLKIT_HOME="$_acldump_home"
export ASCEND_HOME_PATH="$_acldump_home"
export INSTALL_DIR="${INSTALL_DIR:-$_acldump_home}"
export DDK_PATH="$_acldump_home"
export NPU_HOST_LIB="$_acldump_home/runtime/lib64/stub"
export LD_LIBRARY_PATH="$_acldump_home/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$_acldump_home/bin:$PATH"
unset _acldump_home
"""


def deterministic_zip(root, out, first=(), last=()):
    """A zip of root's files: `first` names at the start (a jar's manifest), `last` at the end,
    the rest in name order; fixed times and permissions."""
    names = []
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            names.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    middle = sorted(n for n in names if n not in first and n not in last)
    ordered = [n for n in first if n in names] + middle + [n for n in last if n in names]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ordered:
            path = os.path.join(root, name)
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            mode = 0o755 if os.access(path, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                archive.writestr(info, f.read(), compresslevel=9)


WHEEL_METADATA = """\
Metadata-Version: 2.1
Name: acldump
Version: {version}
Summary: Inference runtime with model dump behind the ACL API: pyACL-style `acl` and Pythonic `acldump`
License: Apache-2.0
Requires-Python: >=3.11,<3.12
Provides-Extra: numpy
Requires-Dist: numpy; extra == "numpy"
Requires-Dist: xxhash; extra == "numpy"
Provides-Extra: analysis
Requires-Dist: pandas; extra == "analysis"
Requires-Dist: distributed; extra == "analysis"
Description-Content-Type: text/markdown

`acl` has pyACL's call shapes (`ret = acl.mdl.set_dump(path)`); `acldump` adds exceptions, context
managers, numpy, `.onnx` loading and the reading API for dump trees:

    import acldump
    with acldump.session(), acldump.dump_session("acl.json"):
        with acldump.Model("model.onnx") as model:
            outputs = model.run(image)

The native library is inside the wheel (`acldump.libs/`), with abseil, protobuf, fmt and Highway
linked in; the system provides the C/C++ runtime and oneDNN (libdnnl2). numpy is optional (without it,
`Model.run` takes and returns bytes): `pip install acldump[numpy]` asks for it. The `acldump`
command (the dump tool) comes with it; `acldump.analysis` (many dump trees, on Dask) needs pandas
and dask: `pip install acldump[analysis]`.
"""

WHEEL_FILE = """\
Wheel-Version: 1.0
Generator: acldump package.py
Root-Is-Purelib: false
Tag: {tag}
"""


def record_line(root, name):
    with open(os.path.join(root, name), "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def build_wheel(args):
    version = args.version
    soname = "libacldump.so." + version.split(".")[0]
    dist_info = "acldump-%s.dist-info" % version
    with tempfile.TemporaryDirectory() as root:
        for dest, source in pairs(args.py, "--py"):
            copy_file(source, os.path.join(root, dest))
        libs = os.path.join(root, "acldump.libs")
        os.makedirs(libs)
        # The library under its SONAME.
        install_binary(args.lib, os.path.join(libs, soname))
        extension = os.path.join(root, "acl", "_aclswig.so")
        install_binary(args.extension, extension, "$ORIGIN/../acldump.libs")
        for name in needed(extension):
            if name.startswith("libacldump.so"):
                run("patchelf", "--replace-needed", name, soname, extension)
        # The dump tool as the environment's `acldump` command: acldump.analysis runs it, and so
        # do a cluster's workers.
        scripts = os.path.join(root, "acldump-%s.data" % version, "scripts")
        for dest, source in pairs(args.script, "--script"):
            os.makedirs(scripts, exist_ok=True)
            install_binary(source, os.path.join(scripts, dest))
        # The bundled model and its data under the environment's share/acldump, where the tool
        # finds them beside its bin/ (as in the SDK tarball).
        data = os.path.join(root, "acldump-%s.data" % version, "data", "share", "acldump")
        for dest, source in pairs(args.share, "--share"):
            copy_file(source, os.path.join(data, dest))
        write_text(os.path.join(root, dist_info, "METADATA"), WHEEL_METADATA.format(version=version))
        write_text(os.path.join(root, dist_info, "WHEEL"), WHEEL_FILE.format(tag=args.tag))
        write_text(os.path.join(root, dist_info, "top_level.txt"), "acl\nacldump\n")
        names = []
        for directory, _, files in os.walk(root):
            for name in files:
                names.append(os.path.relpath(os.path.join(directory, name), root))
        record = sorted(record_line(root, n) for n in names) + [dist_info + "/RECORD,,"]
        write_text(os.path.join(root, dist_info, "RECORD"), "\n".join(record) + "\n")
        deterministic_zip(root, args.out, last=[dist_info + "/RECORD"])


POM_TEMPLATE = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- Install into a local Maven repository:
     mvn install:install-file -Dfile=acldump-{version}.jar -DpomFile=acldump-{version}.pom -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acldump</groupId>
  <artifactId>acldump</artifactId>
  <version>{version}</version>
  <packaging>jar</packaging>
  <name>acldump</name>
  <description>Inference runtime with model dump behind the ACL API (com.acldump), with its native
    libraries for Linux x86_64 inside the jar.</description>
  <licenses>
    <license>
      <name>Apache-2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0</url>
    </license>
  </licenses>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
</project>
"""

MANIFEST = """\
Manifest-Version: 1.0
Created-By: acldump package.py
Implementation-Title: acldump
Implementation-Version: {version}
Automatic-Module-Name: com.acldump

"""


def build_jar(args):
    version = args.version
    soname = "libacldump.so." + version.split(".")[0]
    with tempfile.TemporaryDirectory() as root:
        with zipfile.ZipFile(args.classes) as classes:
            for name in classes.namelist():
                if name.endswith("/") or name.upper().startswith("META-INF/"):
                    continue
                target = os.path.join(root, name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(classes.read(name))
                os.chmod(target, 0o644)
        natives = os.path.join(root, "com", "acldump", "native", "linux-x86_64")
        os.makedirs(natives)
        install_binary(args.lib, os.path.join(natives, soname))
        jni = os.path.join(natives, "libacldump_jni.so")
        install_binary(args.jni, jni, "$ORIGIN")
        for name in needed(jni):
            if name.startswith("libacldump.so"):
                run("patchelf", "--replace-needed", name, soname, jni)
        write_text(os.path.join(natives, "files.txt"), "\n".join([soname, "libacldump_jni.so"]) + "\n")
        pom = POM_TEMPLATE.format(version=version)
        write_text(os.path.join(root, "META-INF", "MANIFEST.MF"), MANIFEST.format(version=version))
        write_text(os.path.join(root, "META-INF", "maven", "com.acldump", "acldump", "pom.xml"), pom)
        deterministic_zip(root, args.out, first=["META-INF/MANIFEST.MF"])
    write_text(args.pom, pom)


def build_go_module(args):
    top = "acldump-go-%s" % args.version
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, top)
        for dest, source in pairs(args.file, "--file"):
            copy_file(source, os.path.join(root, dest))
        if not os.path.exists(os.path.join(root, "go.mod")):
            fail("the Go module needs its go.mod")
        deterministic_tar(root, top, args.out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="artifact", required=True)
    sdk = sub.add_parser("sdk", help="the C/C++ SDK tarball")
    sdk.add_argument("--version", required=True)
    sdk.add_argument("--out", required=True)
    sdk.add_argument("--lib", required=True, help="libacldump.so.<version> (with its SONAME)")
    sdk.add_argument("--header", action="append", default=[])
    sdk.add_argument("--bin", action="append", default=[], help="NAME=executable")
    sdk.add_argument("--share", action="append", default=[], help="PATH=file under share/acldump")
    sdk.add_argument("--doc", action="append", default=[], help="PATH=file at the top")
    wheel = sub.add_parser("wheel", help="the Python wheel")
    wheel.add_argument("--version", required=True)
    wheel.add_argument("--out", required=True)
    wheel.add_argument("--tag", required=True, help="e.g. cp311-cp311-linux_x86_64")
    wheel.add_argument("--lib", required=True)
    wheel.add_argument("--extension", required=True, help="the SWIG extension acl/_aclswig.so")
    wheel.add_argument("--py", action="append", default=[], help="PATH=file in the wheel")
    wheel.add_argument("--script", action="append", default=[],
                       help="NAME=program installed as a command")
    wheel.add_argument("--share", action="append", default=[],
                       help="PATH=file installed under the environment's share/acldump")
    jar = sub.add_parser("jar", help="the Java jar (classes and native libraries) and its pom")
    jar.add_argument("--version", required=True)
    jar.add_argument("--out", required=True)
    jar.add_argument("--pom", required=True)
    jar.add_argument("--classes", required=True, help="the jar of compiled classes")
    jar.add_argument("--lib", required=True)
    jar.add_argument("--jni", required=True, help="libacldump_jni.so")
    gomod = sub.add_parser("gomodule", help="the Go module's source release")
    gomod.add_argument("--version", required=True)
    gomod.add_argument("--out", required=True)
    gomod.add_argument("--file", action="append", default=[], help="PATH=file in the module")
    args = parser.parse_args()
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", args.version):
        fail("--version must be MAJOR.MINOR.PATCH, not %r" % args.version)
    builders = {"sdk": build_sdk, "wheel": build_wheel, "jar": build_jar,
                "gomodule": build_go_module}
    builders[args.artifact](args)


if __name__ == "__main__":
    main()
