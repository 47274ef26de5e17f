"""Each component (a top-level folder that builds a library or a tool) uses
another only through its public headers (<folder>/include) and CMake
targets: no quoted include reaches into another component's sources, no
<hdtrace/...> include names a header that is not public, and no
CMakeLists.txt puts another component's src/ on its include path or links
its uninstalled internals. Tests, benchmarks and fuzz targets are not
components: they may check a component's parts."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPONENTS = ("codec", "hdtrace", "reader", "clocks", "merger", "exporter", "filter", "mpiwrapper",
              "python")
SOURCES = (".c", ".cpp", ".h", ".hpp", ".in")
QUOTED = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PUBLIC = re.compile(r'^\s*#\s*include\s+<(hdtrace/[^>]+)>', re.M)
OTHER_SOURCES = re.compile(r'\$\{(?:PROJECT|CMAKE)_SOURCE_DIR\}/([a-z0-9_]+)/src\b')
INTERNALS = re.compile(r'\b(hdtrace_[a-z0-9_]+_internals)\b')


def _files(component, suffixes):
    return sorted(path for path in (ROOT / component).rglob("*")
                  if path.is_file() and path.name.endswith(suffixes))


def _cmake_text(component):
    return "\n".join(path.read_text() for path in _files(component, ("CMakeLists.txt",
                                                                      ".cmake")))


def _public_headers():
    found = set()
    for component in COMPONENTS:
        include = ROOT / component / "include"
        if include.is_dir():
            found.update(str(path.relative_to(include)) for path in include.rglob("*")
                         if path.is_file())
    return found


def _generated_names():
    """Header names some CMake file generates (named there), by component:
    built for the component's own use or handed out by an interface target."""
    return {component: set(re.findall(r"[A-Za-z0-9_]+\.(?:hpp|h|inc)\b",
                                      _cmake_text(component)))
            for component in COMPONENTS}


def _own(component, included, including):
    """Whether a quoted include names a file of the including component."""
    if (including.parent / included).is_file():
        return True
    return any(str(path).endswith("/" + included) for path in _files(component, SOURCES))


def boundary_problems():
    problems = []
    public = _public_headers()
    generated = _generated_names()
    shared_cmake = "\n".join(path.read_text() for path in (ROOT / "cmake").glob("*.cmake"))
    for component in COMPONENTS:
        for path in _files(component, SOURCES):
            text = path.read_text(errors="replace")
            where = path.relative_to(ROOT)
            for included in QUOTED.findall(text):
                name = Path(included).name
                if _own(component, included, path) or \
                        any(name in names for names in generated.values()):
                    continue
                owners = [other for other in COMPONENTS if other != component and
                          any(str(found).endswith("/" + included)
                              for found in _files(other, SOURCES))]
                problems.append(f'{where}: #include "{included}" is ' +
                                (f"a private header of {', '.join(owners)}" if owners else
                                 f"no file of {component} nor one a CMake file generates"))
            for included in PUBLIC.findall(text):
                name = Path(included).name
                if included not in public and name not in shared_cmake and \
                        not any(name in names for names in generated.values()):
                    problems.append(f"{where}: #include <{included}> is no public header "
                                    f"(no component's include/ holds it)")
        cmake = _cmake_text(component)
        for other in OTHER_SOURCES.findall(cmake):
            if other != component:
                problems.append(f"{component}/CMakeLists.txt: puts {other}/src on an include "
                                f"path")
        for target in INTERNALS.findall(cmake):
            if not re.search(rf"add_library\({target}\b", cmake):
                problems.append(f"{component}/CMakeLists.txt: uses {target}, another "
                                f"component's uninstalled internals")
    return problems


def test_no_component_reaches_into_another_ones_sources():
    assert boundary_problems() == []


def codec_problems():
    """The codec is the bottom layer: it includes only its own public
    headers and links no other component, so that the writer, the reader
    and whatever reads or writes trace bytes can all build on it."""
    problems = []
    for path in _files("codec", SOURCES):
        where = path.relative_to(ROOT)
        for included in PUBLIC.findall(path.read_text(errors="replace")):
            if not included.startswith("hdtrace/codec/"):
                problems.append(f"{where}: includes <{included}>, which is not the codec's")
    linked = re.findall(r"target_link_libraries\(\s*\S+\s+([^)]*)\)", _cmake_text("codec"))
    for names in linked:
        for name in re.findall(r"\bhdtrace_[a-z0-9_]+\b", names):
            if name != "hdtrace_warnings" and not name.startswith("hdtrace_codec"):
                problems.append(f"codec/CMakeLists.txt: links {name}")
    return problems


def test_the_codec_builds_on_no_other_component():
    assert codec_problems() == []


def test_the_codec_check_sees_an_include_and_a_link_from_above(tmp_path, monkeypatch):
    (tmp_path / "codec" / "src").mkdir(parents=True)
    (tmp_path / "codec" / "src" / "Encoder.cpp").write_text(
        "#include <hdtrace/codec/Varint.hpp>\n#include <hdtrace/FrameWriter.hpp>\n")
    (tmp_path / "codec" / "CMakeLists.txt").write_text(
        "target_link_libraries(hdtrace_codec_objects PRIVATE hdtrace_warnings hdtrace_reader)\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert codec_problems() == [
        "codec/src/Encoder.cpp: includes <hdtrace/FrameWriter.hpp>, which is not the codec's",
        "codec/CMakeLists.txt: links hdtrace_reader",
    ]


def test_the_check_sees_a_component_reaching_into_another(tmp_path, monkeypatch):
    # The check itself, on a copy of two components where one includes the
    # other's private header and links its internals.
    for component in ("reader", "clocks"):
        (tmp_path / component / "src").mkdir(parents=True)
        (tmp_path / component / "include" / "hdtrace" / component).mkdir(parents=True)
    (tmp_path / "cmake").mkdir()
    (tmp_path / "reader" / "src" / "Private.hpp").write_text("#pragma once\n")
    (tmp_path / "reader" / "include" / "hdtrace" / "reader" / "Public.hpp").write_text("")
    (tmp_path / "reader" / "CMakeLists.txt").write_text(
        "add_library(hdtrace_reader_internals INTERFACE)\n")
    (tmp_path / "clocks" / "src" / "Clock.cpp").write_text(
        '#include <hdtrace/reader/Public.hpp>\n#include <hdtrace/reader/Private.hpp>\n'
        '#include "Private.hpp"\n')
    (tmp_path / "clocks" / "CMakeLists.txt").write_text(
        "target_include_directories(c PRIVATE ${PROJECT_SOURCE_DIR}/reader/src)\n"
        "target_link_libraries(c PRIVATE hdtrace_reader_internals)\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert boundary_problems() == [
        'clocks/src/Clock.cpp: #include "Private.hpp" is a private header of reader',
        "clocks/src/Clock.cpp: #include <hdtrace/reader/Private.hpp> is no public header "
        "(no component's include/ holds it)",
        "clocks/CMakeLists.txt: puts reader/src on an include path",
        "clocks/CMakeLists.txt: uses hdtrace_reader_internals, another component's "
        "uninstalled internals",
    ]
