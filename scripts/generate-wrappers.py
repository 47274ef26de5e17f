#!/usr/bin/env python3
"""Write the PMPI wrappers of libhdtracempi (docs/dev/adding-a-call.md).

    generate-wrappers.py [--dialect DIALECT_TOML] FUNCTIONS_H WRAPPER_CONF_PY OUTPUT_CPP
                         [MPI_DECLARATIONS]

FUNCTIONS_H lists the C prototypes of the traced functions; WRAPPER_CONF_PY
says, per function, what is logged (see its header). The output is one C++
file of extern "C" MPI_X definitions that call PMPI_X through the runtime's
hdtracempi::Call. Any mismatch between the two inputs is an error naming the
function and what is wrong; nothing is written then.

MPI_DECLARATIONS, when given, is the MPI library's mpi.h after the C
preprocessor. For every function of FUNCTIONS_H whose MPI-4 large-count
form (MPI_X_c) it declares, the same wrapper is also written for MPI_X_c,
with the header's parameter types and the names of FUNCTIONS_H, so that
the large-count call is traced with the same tag and attributes. The
header decides which forms exist, not a list kept by hand.

With --dialect (the build passes format/dialect.toml), every entry must
write what that definition of the dialect says of its tag: the same attributes, in the same
order, children where the definition has them; every call the definition
lists must be written by some entry. A difference is an error naming the
function, and nothing is written.
"""
import os
import re
import runpy
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'format'))
import dialect as dialect_definition  # noqa: E402

PROTOTYPE = re.compile(r'^\s*int\s+(\w+)\s*\(([^)]*)\)\s*;', re.M)
IDENTIFIER = re.compile(r'(?<![.\w>:])([A-Za-z_]\w*)')
DECLARED = re.compile(r'\b(?:int64_t|int|MPI_\w+|auto|hdtracempi::\w+)\s*\*?\s*(?:const\s+)?(\w+)\s*[=(;]')
# Names an expression may use besides the arguments of its function.
KNOWN = {'call', 'result', 'statusSeen', 'hdtracempi', 'static_cast', 'int64_t', 'const', 'true',
         'false', 'nullptr', 'if', 'int', 'auto'}
ENTRY_KEYS = {'tag', 'attrs', 'children', 'status', 'first', 'before', 'after', 'last', 'call',
              'init', 'classic_only', 'always'}


class ConfigError(Exception):
    pass


LARGE_COUNT = re.compile(r'\bint\s+(MPI_\w+_c)\s*\(([^)]*)\)', re.S)


def parse_large_count(path):
    """{MPI_X_c: parameter text} of every large-count prototype in a
    preprocessed mpi.h."""
    text = open(path).read()
    return {name: ' '.join(params.split()) for name, params in LARGE_COUNT.findall(text)}


def renamed_parameters(function, params, names):
    """params (the header's) with each parameter named as in names (functions.h)."""
    parts = [part.strip() for part in params.split(',')]
    if len(parts) != len(names):
        raise ConfigError(f'{function}: the header declares {len(parts)} parameters, '
                          f'functions.h names {len(names)}')
    renamed = []
    for part, name in zip(parts, names):
        match = re.search(r'(\w+)(\s*\[\s*\])?\s*$', part)
        if not match:
            raise ConfigError(f'{function}: cannot read the parameter "{part}"')
        renamed.append(part[:match.start(1)] + name + (match.group(2) or ''))
    return ', '.join(renamed)


def parse_prototypes(path):
    text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
    functions = {}
    for match in PROTOTYPE.finditer(text):
        name, params = match.group(1), match.group(2).strip()
        args = []
        # A variadic function (MPI_Pcontrol): the wrapper takes the "..." too,
        # but passes on only the named arguments.
        named = re.sub(r',\s*\.\.\.\s*$', '', params)
        if named != 'void':
            for param in named.split(','):
                arg = re.search(r'(\w+)\s*(\[\s*\])?\s*$', param.strip())
                if not arg:
                    raise ConfigError(f'{path}: {name}: cannot read the parameter "{param}"')
                args.append(arg.group(1))
        if name in functions:
            raise ConfigError(f'{path}: {name} is listed twice')
        functions[name] = (params, args)
    if not functions:
        raise ConfigError(f'{path}: no prototypes found')
    return functions


def with_tags(entries):
    """The entries, each with its tag: the one it names, else the function's
    name without MPI_ (the definition of the dialect holds what is written
    under that tag)."""
    return {function: entry if 'tag' in entry else dict(entry, tag=function[len('MPI_'):])
            for function, entry in entries.items()}


def check_names(function, args, entry, what, code, declared):
    for name in IDENTIFIER.findall(code):
        if name in args or name in KNOWN or name in declared or name.startswith(('MPI_', 'PMPI_')):
            continue
        raise ConfigError(f'{function}: {what} uses "{name}", which is not an argument of '
                          f'{function}({", ".join(args)})')


def check_entry(function, args, entry, kinds):
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        raise ConfigError(f'{function}: unknown key(s) {sorted(unknown)}')
    if 'tag' not in entry:
        raise ConfigError(f'{function}: entry has no tag')
    hooks = ' '.join(entry.get(key, '') for key in ('first', 'before', 'after', 'last'))
    declared = set(DECLARED.findall(hooks))
    if entry.get('status') and entry['status'] not in args:
        raise ConfigError(f'{function}: status "{entry["status"]}" is not an argument of {function}')
    for attr in entry.get('attrs', []):
        name, kind, values = attr[0], attr[1], attr[2:]
        if kind not in kinds:
            raise ConfigError(f'{function}: attribute {name}: unknown kind "{kind}"')
        needed = len(set(re.findall(r'\{(\d+)\}', kinds[kind][0])))
        if len(values) != needed:
            raise ConfigError(f'{function}: attribute {name} of kind {kind} needs {needed} '
                              f'argument(s), has {len(values)}')
        if 'statusSeen' in kinds[kind][0] and not entry.get('status'):
            raise ConfigError(f'{function}: attribute {name} reads the status, but the entry '
                              f'names no status argument')
        for value in values:
            check_names(function, args, entry, f'attribute {name}', value, declared)
    for key in ('first', 'before', 'after', 'last', 'children', 'call', 'always'):
        check_names(function, args, entry, key, entry.get(key, ''), declared)


def check_against_dialect(entries, not_logged, dialect):
    """The differences between the wrapper's entries and the definition."""
    errors, written = [], set()
    for function, entry in entries.items():
        tag = entry.get('tag')
        call = dialect.calls.get(tag)
        where = f'{function} (<{tag}>)'
        if call is None:
            errors.append(f'{where}: {dialect.path} defines no call {tag}')
            continue
        layer = dialect.layer_of(call)
        if layer.wrappers != dialect_definition.MPI_WRAPPERS:
            errors.append(f'{where}: {tag} is a call of the layer {layer.key}, whose wrappers '
                          f'{layer.wrappers} generates, not of MPI')
            continue
        written.add(tag)
        names = [attr[0] for attr in entry.get('attrs', [])]
        if names != call.attribute_names:
            errors.append(f'{where}: writes the attributes {names}, the definition says '
                          f'{call.attribute_names}')
        has_children = bool(entry.get('children'))
        if has_children != bool(call.children):
            errors.append(f'{where}: the definition says it has children {call.children or []}, '
                          f'the entry ' + ('writes some' if has_children else 'writes none'))
        ordinary = not names and not has_children
        if function in not_logged:
            if call.logged != 'never':
                errors.append(f'{where}: never written, but the definition does not say '
                              f'logged = "never"')
        elif ordinary != (call.logged == 'all-functions'):
            errors.append(f'{where}: ' + ('written only with HDTRACE_ALL_FUNCTIONS=1, but the '
                                          'definition does not say logged = "all-functions"'
                                          if ordinary else 'always written, but the definition '
                                          'says logged = "all-functions"'))
    # The other layers' calls are written by wrappers generated from their
    # own configurations (the layer's wrappers key), not from entries here.
    for tag, call in dialect.calls.items():
        if tag not in written and dialect.layer_of(call).wrappers == dialect_definition.MPI_WRAPPERS:
            errors.append(f'{dialect.path}: the call {tag} is written by no entry')
    return errors


def has_hooks(entry):
    """Whether a wrapper keeps a registry up to date (requests, communicators,
    files, types, ...) or calls the library its own way: it then runs whether
    or not its call is written."""
    return any(entry.get(key) for key in ('always', 'first', 'before', 'after', 'last', 'call',
                                          'init'))


def indent(code, spaces):
    return ''.join(' ' * spaces + line + '\n' for line in code.splitlines() if line.strip())


def attribute_lines(attrs, values):
    """The written call's attributes: their names in a static table, their
    values in a tuple made in their order (Call::attributes)."""
    names = ', '.join(f'"{attr[0]}"' for attr in attrs)
    made = ', '.join(values[attr[0]] for attr in attrs)
    return [f'        static constexpr std::string_view kNames[] = {{{names}}};\n',
            f'        call.attributes(kNames, std::tuple{{{made}}});\n']


def wrapper(function, params, args, entry, kinds, logged):
    tag = entry['tag']
    status = entry.get('status')
    call_args = ', '.join('statusSeen' if a == status else a for a in args)
    pass_args = ', '.join(args)
    library = entry.get('call') or f'P{function}({pass_args})'
    library_used = entry.get('call') or f'P{function}({call_args})'
    attrs = entry.get('attrs', [])
    summary = f'<{tag}' + ''.join(' ' + a[0] for a in attrs) + '>' if logged else 'not logged'

    out = [f'// {function}: {summary}\n', f'extern "C" int {function}({params}) {{\n']
    if entry.get('init'):
        # The trace takes its timeAdjustment from this start (docs/format/trace.md: no
        # negative time); the test hook may first wait for a second's end.
        out.append('    hdtracempi::testHookBeforeInit();\n')
        out.append('    const hdtrace::Timestamp start = hdtrace::Timestamp::now();\n')
        out.append(f'    const int result = {library};\n')
        out.append('    const hdtrace::Timestamp end = hdtrace::Timestamp::now();\n')
        out.append('    hdtracempi::startTracing(result, argc, argv, start);\n')
        out.append('    hdtracempi::Call call;\n')
        out.append('    if (!call.active()) return result;\n')
        out.append(f'    call.begin(hdtrace::filter::callIndex::{tag}, "{tag}", start);\n')
        out.append('    call.endedAt(end);\n')
        out.append('    return result;\n}\n\n')
        return ''.join(out)

    out.append(indent(entry.get('always', ''), 4))
    if logged and not has_hooks(entry):
        # Nothing to follow when the filter leaves it out: the library alone.
        out.append(f'    if (!hdtracempi::callTraced(hdtrace::filter::callIndex::{tag})) '
                   f'return {library};\n')
    out.append('    hdtracempi::Call call;\n')
    out.append(f'    if (!call.active()) return {library};\n')
    out.append(indent(entry.get('first', ''), 4))
    if logged:
        out.append(f'    call.begin(hdtrace::filter::callIndex::{tag}, "{tag}");\n')
    if status:
        out.append('    MPI_Status ignoredStatus;\n')
        out.append(f'    MPI_Status *const statusSeen = {status} == MPI_STATUS_IGNORE ? '
                   f'&ignoredStatus : {status};\n')
    values = {}
    for attr in attrs:
        name, kind, exprs = attr[0], attr[1], attr[2:]
        template, when = kinds[kind]
        value = template.format(*[f'({e})' if ' ' in e else e for e in exprs])
        if when == 'before':
            local = 'before_' + re.sub(r'\W', '_', name)
            out.append(f'    const auto {local} = call.writing() ? {value} : 0;\n')
            value = local
        values[name] = value
    out.append(indent(entry.get('before', ''), 4))
    out.append('    call.enterLibrary();\n')
    out.append(f'    const int result = {library_used};\n')
    out.append('    call.leaveLibrary();\n')
    out.append(indent(entry.get('after', ''), 4))
    if attrs or entry.get('children'):
        out.append('    if (call.writing()) {\n')
        if attrs:
            out += attribute_lines(attrs, values)
        out.append(indent(entry.get('children', ''), 8))
        out.append('    }\n')
    out.append(indent(entry.get('last', ''), 4))
    out.append('    return result;\n}\n\n')
    return ''.join(out)


def generate(functions_h, conf_py, declarations=None, dialect_toml=None):
    functions = parse_prototypes(functions_h)
    conf = runpy.run_path(conf_py)
    entries, kinds = with_tags(conf['FUNCTIONS']), conf['KINDS']
    not_logged = conf.get('NOT_LOGGED', set())
    errors = []
    for name in functions:
        if name not in entries:
            errors.append(f'{name} is in {functions_h} but has no entry in {conf_py}')
    for name in entries:
        if name not in functions:
            errors.append(f'{conf_py}: {name} has an entry but is not in {functions_h}')
    for name in not_logged:
        if name not in functions:
            errors.append(f'{conf_py}: NOT_LOGGED names {name}, which is not in {functions_h}')
    for name, (params, args) in functions.items():
        if name in entries:
            try:
                check_entry(name, args, entries[name], kinds)
            except ConfigError as error:
                errors.append(str(error))
    if not errors and dialect_toml:
        try:
            errors += check_against_dialect(entries, not_logged,
                                            dialect_definition.load(dialect_toml))
        except dialect_definition.DefinitionError as error:
            errors.append(str(error))
    if errors:
        raise ConfigError('\n'.join(errors))

    parts = [f'// Generated by scripts/generate-wrappers.py from {os.path.basename(functions_h)}\n'
             f'// and {os.path.basename(conf_py)}. Do not edit; edit those instead.\n'
             '// clang-format off\n'
             '#include <mpi.h>\n\n'
             '#include <hdtrace/Timestamp.hpp>\n'
             '#include <hdtrace/hdtracempi.h>\n\n'
             '#include "Call.hpp"\n'
             '#include "SharedSeek.hpp"\n'
             '#include "TestHooks.hpp"\n\n']
    large_count = parse_large_count(declarations) if declarations else {}
    for name, (params, args) in functions.items():
        parts.append(wrapper(name, params, args, entries[name], kinds, name not in not_logged))
        if (name + '_c' in large_count and not entries[name].get('call')
                and not entries[name].get('classic_only')):
            header_params = renamed_parameters(name + '_c', large_count[name + '_c'], args)
            parts.append(wrapper(name + '_c', header_params, args, entries[name], kinds,
                                 name not in not_logged))
    return ''.join(parts)


def named_by_its_folder(text, output):
    """The source with a #line naming it by its folder and name
    ('generated/MpiWrappers.cpp', as the compiler in that folder's parent
    finds it) instead of its full path. Each build tree generates it in a
    folder of its own, and GCC names a function of internal linkage (a
    wrapper's lambda) by its file's name: named alike, the training tree's
    branch counts fit the main tree's functions (cmake/HDTracePgo.cmake)."""
    folder = os.path.basename(os.path.dirname(os.path.abspath(output)))
    return f'#line 2 "{folder}/{os.path.basename(output)}"\n' + text


def write_whole(text, output):
    """Writes output whole or not at all: a temporary file, then a rename."""
    directory = os.path.dirname(os.path.abspath(output))
    with tempfile.NamedTemporaryFile('w', dir=directory, delete=False) as temporary:
        temporary.write(text)
    os.replace(temporary.name, output)


def main():
    arguments = sys.argv[1:]
    dialect_toml = None
    if arguments[:1] == ['--dialect'] and len(arguments) > 1:
        dialect_toml, arguments = arguments[1], arguments[2:]
    if len(arguments) not in (3, 4):
        sys.exit(__doc__)
    functions_h, conf_py, output = arguments[:3]
    declarations = arguments[3] if len(arguments) == 4 else None
    try:
        text = generate(functions_h, conf_py, declarations, dialect_toml)
    except (ConfigError, OSError, SyntaxError, KeyError) as error:
        sys.exit(f'generate-wrappers.py: error:\n{error}')
    write_whole(named_by_its_folder(text, output), output)


if __name__ == '__main__':
    main()
