#!/usr/bin/env python3
"""Write the Fortran entry points of libhdtracempi (docs/dev/wrapper.md, "Fortran").

    generate-fortran-wrappers.py FUNCTIONS_H WRAPPER_CONF_PY FORTRAN_CONF_PY OUTPUT_CPP

For every function of FUNCTIONS_H this defines the names the MPI library's
Fortran bindings export (mpi_send_, mpi_send__, mpi_send, MPI_SEND) and
Open MPI's ompi_send_f, which its mpi_f08 bindings call. Each entry builds
C views of its Fortran arguments (MPI_*_f2c, 0-based indices, trimmed
strings, the C MPI_IN_PLACE for the Fortran one), runs the hooks and
attributes WRAPPER_CONF_PY gives the C wrapper, and lets the library's own
Fortran binding (pmpi_send_) do the MPI work, so that error codes,
sentinels and Fortran conversions stay the library's.

The rules go by C parameter type (FORTRAN_CONF_PY). A parameter type without
a rule, or a function the rules cannot bind that FORTRAN_CONF_PY does not
list, is an error naming function and parameter; nothing is written then.
"""
import importlib.util
import os
import re
import runpy
import sys

_spec = importlib.util.spec_from_file_location(
    'generate_wrappers', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      'generate-wrappers.py'))
generate_wrappers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate_wrappers)
ConfigError = generate_wrappers.ConfigError

# MPI handle types and their Fortran-to-C conversion.
HANDLES = {
    'MPI_Comm': 'MPI_Comm_f2c', 'MPI_Datatype': 'MPI_Type_f2c', 'MPI_Op': 'MPI_Op_f2c',
    'MPI_Info': 'MPI_Info_f2c', 'MPI_File': 'MPI_File_f2c', 'MPI_Group': 'MPI_Group_f2c',
    'MPI_Request': 'MPI_Request_f2c', 'MPI_Win': 'MPI_Win_f2c', 'MPI_Message': 'MPI_Message_f2c',
    'MPI_Errhandler': 'MPI_Errhandler_f2c', 'MPI_Session': 'MPI_Session_f2c',
}
# Numbers, and the type Fortran passes them as (by reference).
NUMBERS = {'int': 'MPI_Fint', 'MPI_Aint': 'MPI_Aint', 'MPI_Offset': 'MPI_Offset',
           'MPI_Count': 'MPI_Count'}
# The Fortran names the bindings export: gfortran's mpi_send_, g77's mpi_send__,
# and the plain and upper-case forms of other compilers.
MANGLINGS = ('{lower}_', '{lower}__', '{lower}', '{upper}')


class Flavour:
    """Which Fortran binding an entry point stands in for."""

    def __init__(self, name, entry, library, aliases, status_ignored, status_to_c, index_to_c):
        self.name, self.entry, self.library, self.aliases = name, entry, library, aliases
        self.status_ignored, self.status_to_c = status_ignored, status_to_c
        self.index_to_c = index_to_c


# mpif.h and `use mpi` (and Open MPI's mpi_f08, through ompi_send_f): the
# library's pmpi_send_ does the work.
F77 = Flavour('mpif.h', '{lower}_', 'p{lower}_',
              list(MANGLINGS[1:]) + ['ompi_{short}_f'],
              'hdtracempi::fortran::isStatusIgnore', 'MPI_Status_f2c',
              'hdtracempi::fortran::zeroBased')
# MPICH's mpi_f08 procedures without a choice buffer (mpi_barrier_f08_): they
# call PMPI_ directly; pmpir_barrier_f08_ is the same procedure. MPICH 4.0
# returns their Waitany/Waitsome indices 0-based (FortranSupport.hpp).
F08 = Flavour('mpi_f08', '{lower}_f08_', 'pmpir_{short}_f08_', [],
              'hdtracempi::fortran::isF08StatusIgnore', 'hdtracempi::fortran::f08StatusToC',
              'hdtracempi::fortran::mpichF08Index')


class Param:
    """One C parameter: how Fortran passes it and how its C view is made."""

    def __init__(self, function, text):
        self.text = text
        match = re.fullmatch(r'(.*?)(\w+)\s*(\[\s*\])?', text.strip())
        if text.strip() == '...':
            self.name, self.kind, self.base, self.pointers = '...', 'c_only', '', 0
            return
        if not match:
            raise ConfigError(f'{function}: cannot read the parameter "{text}"')
        type_text, self.name, array = match.group(1), match.group(2), match.group(3)
        self.type_text = type_text.strip() + ('[]' if array else '')
        self.const = bool(re.search(r'\bconst\b', type_text))
        self.base = re.sub(r'\bconst\b|\*|\s', '', type_text)
        self.pointers = type_text.count('*') + (1 if array else 0)
        self.array = bool(array)
        key = re.sub(r'\s', '', re.sub(r'\bconst\b', '', type_text)) + self.name + (
            '[]' if array else '')
        self.key = key
        self.kind = self.classify(function)

    def classify(self, function):
        conf = FORTRAN
        if self.key in conf['C_ONLY'] or re.sub(r'\w+$', '', self.key) in conf['C_ONLY']:
            return 'c_only'
        if self.key in conf['ONE_BASED']:
            return 'one_based'
        base, pointers = self.base, self.pointers
        if base == 'void' and pointers == 1:
            return 'buffer'
        if base == 'char' and pointers == 1:
            return 'string'
        if re.fullmatch(r'MPI_\w+_(function|fn)', base) and pointers == 1:
            return 'procedure'
        if base == 'MPI_Status' and pointers == 1:
            return 'status_array' if self.array or self.name.startswith('array_of') else 'status'
        if base in NUMBERS and pointers <= 1:
            return 'number' if pointers == 0 else 'number_pointer'
        if base in HANDLES:
            if pointers == 0:
                return 'handle'
            if pointers == 1:
                return 'handle_array' if self.array else 'handle_pointer'
        raise ConfigError(f'{function}: parameter "{self.text.strip()}": no Fortran rule for '
                          f'the type "{self.type_text}" '
                          f'(add one to scripts/generate-fortran-wrappers.py, or list '
                          f'{function} in fortran_conf.py NO_FORTRAN with the reason)')

    @property
    def fortran_type(self):
        """The parameter's type in the Fortran entry (by reference)."""
        if self.kind == 'buffer' or self.kind == 'procedure':
            return 'void *'
        if self.kind == 'string':
            return 'char *'
        if self.base in NUMBERS:
            return NUMBERS[self.base] + ' *'
        return 'MPI_Fint *'


def parse_params(function, params):
    if params.strip() == 'void':
        return []
    return [Param(function, text) for text in params.split(',')]


def names_in(code):
    return set(generate_wrappers.IDENTIFIER.findall(code))


def array_length(function, param, params):
    for candidate in FORTRAN['ARRAY_LENGTHS'].get(param.name, ()):
        plain = candidate.lstrip('*')
        if any(p.name == plain for p in params):
            return f'*{plain}_f'  # every Fortran argument is a reference
    raise ConfigError(f'{function}: the hooks read the array parameter "{param.name}", whose '
                      f'length fortran_conf.py ARRAY_LENGTHS does not give')


def views(function, params, entry, kinds, flavour):
    to_c = flavour.index_to_c
    """The C++ statements that make the C views, before and after the call."""
    status = entry.get('status')
    code_before = entry.get('before', '') + ' ' + ' '.join(
        ' '.join(attr[2:]) for attr in entry.get('attrs', []) if kinds[attr[1]][1] == 'before')
    code_all = ' '.join([entry.get(key, '') for key in ('before', 'after', 'last', 'children')] +
                        [' '.join(attr[2:]) for attr in entry.get('attrs', [])])
    used, used_before = names_in(code_all), names_in(code_before)
    before, after = [], []
    for p in params:
        n, f = p.name, p.name + '_f'
        if p.kind == 'c_only' or (n not in used and n != status):
            continue
        if p.kind == 'procedure':
            raise ConfigError(f'{function}: the hooks read the procedure argument "{n}", which '
                              f'Fortran passes with other conventions')
        if p.kind == 'status_array':
            raise ConfigError(f'{function}: the hooks read the status array "{n}"; no rule '
                              f'converts Fortran status arrays')
        if p.kind == 'status':
            if n != status:
                raise ConfigError(f'{function}: the hooks read the status "{n}" that is not the '
                                  f"entry's status; name it as status in wrapper_conf.py")
            # A status of our own stands in for MPI_STATUS_IGNORE, as in the C wrapper.
            before.append(f'MPI_Fint ignoredStatus[hdtracempi::fortran::kStatusSize] = {{}};\n'
                          f'MPI_Fint *const {n}_passed = {flavour.status_ignored}({f}) ? '
                          f'ignoredStatus : {f};')
            after.append('MPI_Status statusSeenValue;\n'
                         f'{flavour.status_to_c}({n}_passed, &statusSeenValue);\n'
                         'MPI_Status *const statusSeen = &statusSeenValue;')
        elif p.kind == 'number':
            before.append(f'const {p.base} {n} = *{f};')
        elif p.kind == 'number_pointer':
            cast = 'int' if p.base == 'int' else p.base
            before.append(f'{"const " if p.const else ""}{cast} *const {n} = {f};')
        elif p.kind == 'buffer':
            before.append(f'{"const " if p.const else ""}void *const {n} = '
                          f'hdtracempi::fortran::buffer({f});')
        elif p.kind == 'string':
            line = (f'const hdtracempi::fortran::String {n}_text({f}, {n}_length);\n'
                    f'const char *const {n} = {n}_text.c_str();')
            (before if p.const else after).append(line)
        elif p.kind == 'handle':
            before.append(f'const {p.base} {n} = {HANDLES[p.base]}(*{f});')
        elif p.kind == 'handle_pointer':
            if n in used_before:
                before.append(f'{p.base} {n}_value = {HANDLES[p.base]}(*{f});\n'
                              f'{p.base} *const {n} = &{n}_value;')
                after.append(f'{n}_value = {HANDLES[p.base]}(*{f});')
            else:
                after.append(f'{p.base} {n}_value = {HANDLES[p.base]}(*{f});\n'
                             f'{p.base} *const {n} = &{n}_value;')
        elif p.kind == 'handle_array':
            length = array_length(function, p, params)
            convert = (f'for (int i = 0; i < {n}_view.size(); ++i) '
                       f'{n}_view[i] = {HANDLES[p.base]}({f}[i]);')
            declare = (f'hdtracempi::fortran::Scratch<{p.base}> {n}_view({length});\n'
                       f'{convert}\n{p.base} *const {n} = {n}_view.data();')
            if n in used_before:
                before.append(declare)
                if not p.const:
                    after.append(convert)
            else:
                after.append(declare)
        elif p.kind == 'one_based':
            if p.array:
                # A count the call returns is garbage when the call failed.
                length = (f'result == MPI_SUCCESS || result == MPI_ERR_IN_STATUS ? '
                          f'{array_length(function, p, params)} : 0')
                after.append(f'hdtracempi::fortran::Scratch<int> {n}_view({length});\n'
                             f'for (int i = 0; i < {n}_view.size(); ++i) '
                             f'{n}_view[i] = {to_c}({f}[i]);\n'
                             f'int *const {n} = {n}_view.data();')
            else:
                after.append(f'int {n}_value = {to_c}(*{f});\n'
                             f'int *const {n} = &{n}_value;')
    return before, after


def entry_point(function, params, entry, kinds, logged, flavour):
    conf = FORTRAN
    lower, upper = function.lower(), function.upper()
    names = dict(lower=lower, upper=upper, short=lower[len('mpi_'):])
    fortran = [p for p in params if p.kind != 'c_only']
    strings = [p for p in fortran if p.kind == 'string']
    ierror = function not in conf['NO_IERROR']
    signature = [f'{p.fortran_type}{p.name}_f' for p in fortran]
    if ierror:
        signature.append('MPI_Fint *ierr')
    signature += [f'size_t {p.name}_length' for p in strings]
    declared = ([p.fortran_type.strip() for p in fortran] + (['MPI_Fint *'] if ierror else [])
                + ['size_t' for _ in strings])
    status = entry.get('status')
    library = flavour.library.format(**names)

    def library_call(passed_status):
        args = [(f'{p.name}_passed' if passed_status and p.name == status else f'{p.name}_f')
                for p in fortran]
        if ierror:
            args.append('ierr')
        args += [f'{p.name}_length' for p in strings]
        return f'{library}({", ".join(args)})'

    tag = entry['tag']
    attrs = entry.get('attrs', [])
    name = flavour.entry.format(**names)
    out = [f'// {function} from Fortran ({flavour.name}): <{tag}>\n' if logged else
           f'// {function} from Fortran ({flavour.name}): not logged\n',
           f'extern "C" void {library}({", ".join(declared)}) __attribute__((weak));\n',
           f'extern "C" void {name}({", ".join(signature)}) {{\n',
           f'    if (!{library}) hdtracempi::fortran::missingBinding("{library}");\n']
    result = '*ierr' if ierror else 'MPI_SUCCESS'
    # Open MPI's bindings accept a null IERROR; the hooks need the code.
    own_error = '    MPI_Fint ownError;\n    if (!ierr) ierr = &ownError;\n' if ierror else ''
    if entry.get('init'):
        out.append(own_error)
        out.append('    const hdtrace::Timestamp start = hdtrace::Timestamp::now();\n')
        out.append(f'    {library_call(False)};\n')
        out.append('    const hdtrace::Timestamp end = hdtrace::Timestamp::now();\n')
        out.append(f'    hdtracempi::startTracing({result}, nullptr, nullptr, start);\n')
        out.append('    hdtracempi::Call call;\n')
        out.append('    if (!call.active()) return;\n')
        out.append(f'    call.begin(hdtrace::filter::callIndex::{tag}, "{tag}", start);\n')
        out.append('    call.endedAt(end);\n}\n')
    else:
        before, after = views(function, params, entry, kinds, flavour)
        out.append(generate_wrappers.indent(entry.get('always', ''), 4))
        if logged and not generate_wrappers.has_hooks(entry):
            # Nothing to follow when the filter leaves it out: the binding alone.
            out.append(f'    if (!hdtracempi::callTraced(hdtrace::filter::callIndex::{tag})) '
                       f'return {library_call(False)};\n')
        out.append('    hdtracempi::Call call;\n')
        out.append(f'    if (!call.active()) return {library_call(False)};\n')
        out.append(own_error)
        if logged:
            out.append(f'    call.begin(hdtrace::filter::callIndex::{tag}, "{tag}");\n')
        out.append(''.join(generate_wrappers.indent(code, 4) for code in before))
        values = {}
        for attr in attrs:
            attr_name, kind, exprs = attr[0], attr[1], attr[2:]
            template, when = kinds[kind]
            value = template.format(*[f'({e})' if ' ' in e else e for e in exprs])
            if when == 'before':
                local = 'before_' + re.sub(r'\W', '_', attr_name)
                out.append(f'    const auto {local} = call.writing() ? {value} : 0;\n')
                value = local
            values[attr_name] = value
        out.append(generate_wrappers.indent(entry.get('before', ''), 4))
        out.append('    call.enterLibrary();\n')
        out.append(f'    {library_call(True)};\n')
        out.append('    call.leaveLibrary();\n')
        out.append(f'    const int result = {result};\n')
        out.append(''.join(generate_wrappers.indent(code, 4) for code in after))
        out.append(generate_wrappers.indent(entry.get('after', ''), 4))
        if attrs or entry.get('children'):
            out.append('    if (call.writing()) {\n')
            if attrs:
                out += generate_wrappers.attribute_lines(attrs, values)
            out.append(generate_wrappers.indent(entry.get('children', ''), 8))
            out.append('    }\n')
        out.append(generate_wrappers.indent(entry.get('last', ''), 4))
        out.append('    (void)result;\n}\n')
    # The other manglings, and Open MPI's ompi_*_f that its mpi_f08 calls.
    for alias in (a.format(**names) for a in flavour.aliases):
        out.append(f'extern "C" void {alias}({", ".join(signature)}) '
                   f'__attribute__((alias("{name}")));\n')
    out.append('\n')
    return ''.join(out)


def unbound_reason(function):
    if function in FORTRAN['NO_FORTRAN']:
        return FORTRAN['NO_FORTRAN'][function]
    suffix, reason = FORTRAN['NO_FORTRAN_SUFFIX']
    if function.endswith(suffix):
        return reason
    return None


def generate(functions_h, conf_py, fortran_conf_py):
    global FORTRAN
    FORTRAN = runpy.run_path(fortran_conf_py)
    # The C generator's checks first: a Fortran entry runs the same entry.
    generate_wrappers.generate(functions_h, conf_py)
    functions = generate_wrappers.parse_prototypes(functions_h)
    conf = runpy.run_path(conf_py)
    entries, kinds = generate_wrappers.with_tags(conf['FUNCTIONS']), conf['KINDS']
    not_logged = conf.get('NOT_LOGGED', set())
    errors, parts, f08_parts, unbound = [], [], [], []
    for name, (params, _args) in functions.items():
        reason = unbound_reason(name)
        if reason:
            unbound.append(f'// {name}: {reason}\n')
            continue
        try:
            if entries[name].get('call'):
                raise ConfigError(f'{name}: its entry replaces the library call ("call"), which '
                                  f'a Fortran entry cannot do; list it in fortran_conf.py '
                                  f'NO_FORTRAN with the reason')
            parsed = parse_params(name, params)
            logged = name not in not_logged
            parts.append(entry_point(name, parsed, entries[name], kinds, logged, F77))
            # MPICH's mpi_f08: procedures with a choice buffer are C (_f08ts_) and
            # call the C MPI_ function; the others need an entry point.
            if not any(p.kind == 'buffer' and p.name not in FORTRAN['NOT_CHOICE_BUFFERS']
                       for p in parsed):
                f08_parts.append(entry_point(name, parsed, entries[name], kinds, logged, F08))
        except ConfigError as error:
            errors.append(str(error))
    if errors:
        raise ConfigError('\n'.join(errors))
    header = (f'// Generated by scripts/generate-fortran-wrappers.py from '
              f'{os.path.basename(functions_h)},\n// {os.path.basename(conf_py)} and '
              f'{os.path.basename(fortran_conf_py)}. Do not edit; edit those instead.\n'
              '// clang-format off\n'
              '#include <mpi.h>\n\n'
              '#include <cstddef>\n\n'
              '#include <hdtrace/Timestamp.hpp>\n\n'
              '#include "Call.hpp"\n'
              '#include "FortranSupport.hpp"\n\n'
              '// Without a Fortran entry point:\n' + ''.join(unbound) + '\n'
              '// The anchor that pkg-config hdtrace-mpi names (-Wl,--undefined), so that a\n'
              '// static link takes this object even from a program that references none of\n'
              '// its symbols (use mpi_f08 reaches the entries through the library).\n'
              '#if HDTRACE_FORTRAN_ENTRY_POINTS\n'
              'extern "C" void hdtracempi_fortran() {}\n\n')
    middle = ('#else\n'
              '// MPICH: mpif.h, `use mpi` and the mpi_f08 procedures with a choice buffer\n'
              '// call the C MPI_ functions, which the C wrappers trace; the anchor pulls\n'
              '// those in. The other mpi_f08 procedures call PMPI_: entry points below.\n'
              'extern "C" void hdtracempi_fortran() {\n'
              '    static volatile auto keep = &MPI_Init;\n'
              '    (void)keep;\n'
              '}\n\n')
    return header + ''.join(parts) + middle + ''.join(f08_parts) + '#endif\n'


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    functions_h, conf_py, fortran_conf_py, output = sys.argv[1:]
    try:
        text = generate(functions_h, conf_py, fortran_conf_py)
    except (ConfigError, OSError, SyntaxError, KeyError) as error:
        sys.exit(f'generate-fortran-wrappers.py: error:\n{error}')
    generate_wrappers.write_whole(generate_wrappers.named_by_its_folder(text, output), output)


if __name__ == '__main__':
    main()
