"""Reads format/dialect.toml, checks it, and answers what the generators ask.

Every generator (scripts/generate-dialect.py, scripts/generate-wrappers.py)
and the tests that guard the definition load it through load(), so that a
definition that contradicts itself fails the build with the call and the key
that is wrong, before anything is generated from it.
"""
import fnmatch
import os
import re
import tomllib

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dialect.toml')

CALL_KEYS = {
    'family', 'attributes', 'children', 'logged', 'sends_to', 'send_tag', 'receives_from',
    'receive_tag', 'persistent', 'probe', 'probes_message', 'receives_message', 'creates_request',
    'starts', 'completes', 'collective', 'operation', 'rooted_by', 'moves_data', 'io',
    'io_offset', 'rma', 'rma_target', 'rma_completes', 'creates_window', 'opens_file',
    'creates_communicator', 'frees_window', 'deletes_file', 'syncs_file', 'layer',
    'written_on_failure', 'compact_table',
}
# Role keys whose value names one of the call's attributes, and the value
# kind that attribute must have.
ATTRIBUTE_ROLES = {
    'sends_to': 'rank', 'send_tag': 'tag', 'receives_from': 'rank', 'receive_tag': 'tag',
    'probes_message': 'mid', 'receives_message': 'mid', 'creates_request': 'rid',
    'rooted_by': 'rank', 'rma_target': 'rank', 'creates_window': 'wid', 'opens_file': 'fid',
    'creates_communicator': 'cid', 'frees_window': 'wid',
    'deletes_file': 'fid', 'syncs_file': 'fid', 'written_on_failure': 'integer',
}
CHOICES = {
    'logged': {'all-functions', 'never'},
    'starts': {'rid', 'For'},
    'completes': {'For'},
    'collective': {'one-to-all', 'all-to-one', 'all-to-all', 'prefix', 'neighbourhood'},
    'io': {'read', 'write'},
    'rma': {'put', 'get', 'accumulate', 'fetch-and-accumulate', 'compare-and-swap'},
    'rma_completes': {'target', 'all'},
}
CHILD_ELEMENTS = {'For', 'Data', 'Info'}
QUOTES = {"'", '"', ''}
# The kinds whose values are numbers; the others (string, ranks, time) are
# texts to the writer's typed calls.
NUMBER_KINDS = ('integer', 'bytes', 'rank', 'tag', 'cid', 'rid', 'fid', 'tid', 'mid', 'wid')


class DefinitionError(Exception):
    pass


class Attribute:
    __slots__ = ('name', 'kind')

    def __init__(self, name, kind):
        self.name, self.kind = name, kind

    def __repr__(self):
        return f'{self.name}:{self.kind}'


def _attributes(where, texts, kinds):
    attributes = []
    for text in texts:
        name, colon, kind = text.partition(':')
        if not colon or not name or kind not in kinds:
            raise DefinitionError(f'{where}: attribute "{text}" is not name:kind with a kind '
                                  f'of [kinds]')
        if any(existing.name == name for existing in attributes):
            raise DefinitionError(f'{where}: attribute {name} appears twice')
        attributes.append(Attribute(name, kind))
    return attributes


class Call:
    """One call element: its tag, attributes and roles (the other keys)."""

    def __init__(self, tag, entry, dialect):
        where = f'{dialect.path}: [calls.{tag}]'
        unknown = set(entry) - CALL_KEYS
        if unknown:
            raise DefinitionError(f'{where}: unknown key(s) {sorted(unknown)}')
        for key in ('family', 'attributes'):
            if key not in entry:
                raise DefinitionError(f'{where}: no {key}')
        if entry['family'] not in dialect.families:
            raise DefinitionError(f'{where}: family "{entry["family"]}" is not in [families]')
        self.tag = tag
        self.attributes = _attributes(where, entry['attributes'], dialect.kinds)
        self.roles = {key: value for key, value in entry.items()
                      if key not in ('attributes',)}
        kinds = {attribute.name: attribute.kind for attribute in self.attributes}
        for key, kind in ATTRIBUTE_ROLES.items():
            if key in entry and kinds.get(entry[key]) != kind:
                raise DefinitionError(f'{where}: {key} = "{entry[key]}" names no attribute of '
                                      f'kind {kind}')
        for key, choices in CHOICES.items():
            if key in entry and entry[key] not in choices:
                raise DefinitionError(f'{where}: {key} = "{entry[key]}" is none of '
                                      f'{sorted(choices)}')
        if 'layer' in entry and entry['layer'] not in dialect.base_layer_names():
            raise DefinitionError(f'{where}: layer = "{entry["layer"]}" is none of the layers '
                                  f'{dialect.base_layer_names()} (a part_of layer is no call\'s '
                                  f'layer key)')
        for child in entry.get('children', []):
            if child not in CHILD_ELEMENTS:
                raise DefinitionError(f'{where}: child element {child} is none of '
                                      f'{sorted(CHILD_ELEMENTS)}')
        if entry.get('io_offset') not in (None, 'Data') and entry['io_offset'] not in kinds:
            raise DefinitionError(f'{where}: io_offset names no attribute')
        if entry.get('io_offset') == 'Data' and 'Data' not in entry.get('children', []):
            raise DefinitionError(f'{where}: io_offset is Data, but Data is not a child')
        if 'operation' in entry and 'collective' not in entry:
            raise DefinitionError(f'{where}: operation without collective')
        table = entry.get('compact_table', 1)
        if not isinstance(table, int) or isinstance(table, bool) or table < 1:
            raise DefinitionError(f'{where}: compact_table is a table number, 1 or more')

    @property
    def compact_table(self):
        """The compact shape table that first held the call (1: the first)."""
        return self.roles.get('compact_table', 1)

    def __getattr__(self, key):
        if key in CALL_KEYS:
            return self.roles.get(key)
        raise AttributeError(key)

    @property
    def attribute_names(self):
        return [attribute.name for attribute in self.attributes]


GROUP_KEYS = {'about', 'families', 'layers', 'tags', 'any_role', 'no_role', 'where', 'logged'}
# The layer of a call without a layer key.
MPI_LAYER = 'mpi'


class Group:
    """A named set of calls (for filters and scores): the calls matching
    every selector the definition gives."""

    def __init__(self, name, entry, dialect, is_layer=False):
        where = f'{dialect.path}: [' + ('layers' if is_layer else 'groups') + f'.{name}]'
        unknown = set(entry) - GROUP_KEYS
        if unknown:
            raise DefinitionError(f'{where}: unknown key(s) {sorted(unknown)}')
        if not entry.get('about'):
            raise DefinitionError(f'{where}: no about')
        if not re.fullmatch(r'[a-z][a-z0-9-]*', name):
            raise DefinitionError(f'{where}: a group name is lower-case letters, digits and -')
        if not set(entry) - {'about'}:
            raise DefinitionError(f'{where}: selects nothing (no key but about)')
        for family in entry.get('families', []):
            if family not in dialect.families:
                raise DefinitionError(f'{where}: family "{family}" is not in [families]')
        for layer in entry.get('layers', []):
            if layer not in dialect.base_layer_names():
                raise DefinitionError(f'{where}: layer "{layer}" is none of '
                                      f'{dialect.base_layer_names()}')
        for key in entry.get('any_role', []) + entry.get('no_role', []) + list(
                entry.get('where', {})):
            if key not in CALL_KEYS or key in ('family', 'attributes'):
                raise DefinitionError(f'{where}: "{key}" is no role key of a call')
        self.name = name
        self.about = entry['about']
        self.is_layer = is_layer
        self.selectors = {key: value for key, value in entry.items() if key != 'about'}
        self.tags = [tag for tag, call in dialect.calls.items() if self.holds(call)]
        if not self.tags:
            raise DefinitionError(f'{where}: holds no call')

    def holds(self, call):
        chosen = self.selectors
        if 'families' in chosen and call.family not in chosen['families']:
            return False
        if 'layers' in chosen and (call.layer or MPI_LAYER) not in chosen['layers']:
            return False
        if 'tags' in chosen and not any(fnmatch.fnmatchcase(call.tag, pattern)
                                        for pattern in chosen['tags']):
            return False
        if 'any_role' in chosen and not any(call.roles.get(key) is not None
                                            for key in chosen['any_role']):
            return False
        if any(call.roles.get(key) is not None for key in chosen.get('no_role', [])):
            return False
        if any(call.roles.get(key) != value for key, value in chosen.get('where', {}).items()):
            return False
        if 'logged' in chosen and call.logged != chosen['logged']:
            return False
        return True

# What a layer may say of its calls' attributes: a meaning's key, and the
# kind its attributes must have. LIST_MEANINGS name several attributes, the
# first present in a call taken.
SINGLE_MEANINGS = {
    'file': 'fid', 'offset': 'integer', 'done': 'bytes', 'error': 'integer',
    'communicator': 'cid', 'request': 'rid', 'received_from': 'rank', 'received_tag': 'tag',
    'opened_name': 'string', 'window': 'wid', 'received': 'bytes', 'transfer': 'string',
    'dataset': 'integer', 'layout': 'string', 'memory_type_size': 'bytes',
    'extent': 'integer',
}
LIST_MEANINGS = {'asked': 'bytes', 'peer': 'rank', 'tag': 'tag', 'file_type_size': 'bytes'}
MEANINGS = tuple(SINGLE_MEANINGS) + tuple(LIST_MEANINGS)
LAYER_KEYS = {'name', 'about', 'part_of', 'families', 'io', 'c_library', 'own_trace',
              'wrappers'} | set(MEANINGS)
# The configuration a layer's wrappers are generated from, when it names none.
MPI_WRAPPERS = 'mpiwrapper/wrapper_conf.py'
# Meanings only the exports and the Python package take, which fill no
# column of the C++ readers.
EXPORT_MEANINGS = {'window', 'received', 'transfer', 'dataset', 'layout', 'memory_type_size',
                   'file_type_size', 'extent'}
# The readers' columns, filled by attribute name (Dialect.attribute_columns).
COLUMNS = ('file', 'offset', 'bytes', 'asked', 'error', 'communicator', 'request', 'peer',
           'received_from', 'tag', 'received_tag', 'opened_name')


class Layer:
    """A software level of calls (MPI, its part MPI-IO, POSIX, stdio, ...):
    its calls, and which of their attributes mean what."""

    def __init__(self, key, entry, dialect):
        where = f'{dialect.path}: [layers.{key}]'
        unknown = set(entry) - LAYER_KEYS
        if unknown:
            raise DefinitionError(f'{where}: unknown key(s) {sorted(unknown)}')
        for needed in ('name', 'about'):
            if not entry.get(needed):
                raise DefinitionError(f'{where}: no {needed}')
        if not re.fullmatch(r'[a-z][a-z0-9]*', key):
            raise DefinitionError(f'{where}: a layer key is lower-case letters and digits')
        self.key, self.name, self.about = key, entry['name'], entry['about']
        self.part_of = entry.get('part_of')
        self.families = list(entry.get('families', []))
        self.io = entry.get('io', False)
        self.c_library = entry.get('c_library', False)
        self.own_trace = entry.get('own_trace', False)
        for flag in ('io', 'c_library', 'own_trace'):
            if not isinstance(entry.get(flag, False), bool):
                raise DefinitionError(f'{where}: {flag} is true or false')
        self.wrappers = entry.get('wrappers', MPI_WRAPPERS)
        if not isinstance(self.wrappers, str) or not self.wrappers.endswith('.py'):
            raise DefinitionError(f'{where}: wrappers names a configuration, a .py file')
        if self.part_of is not None:
            if self.part_of not in dialect.layer_entries or \
                    dialect.layer_entries[self.part_of].get('part_of'):
                raise DefinitionError(f'{where}: part_of = "{self.part_of}" is no layer that '
                                      f'is not itself a part')
            if not self.families:
                raise DefinitionError(f'{where}: a part_of layer chooses its calls by families')
            if set(entry) & (set(MEANINGS) | {'own_trace', 'wrappers', 'c_library'}):
                raise DefinitionError(f'{where}: a part_of layer takes its meanings, trace and '
                                      f'wrappers from {self.part_of}')
        elif self.families:
            raise DefinitionError(f'{where}: families only choose the calls of a part_of layer')
        for family in self.families:
            if family not in dialect.families:
                raise DefinitionError(f'{where}: family "{family}" is not in [families]')
        self.meanings = {}
        for meaning in SINGLE_MEANINGS:
            if meaning in entry:
                if not isinstance(entry[meaning], str):
                    raise DefinitionError(f'{where}: {meaning} names one attribute')
                self.meanings[meaning] = (entry[meaning],)
        for meaning in LIST_MEANINGS:
            if meaning in entry:
                if not isinstance(entry[meaning], list) or not entry[meaning]:
                    raise DefinitionError(f'{where}: {meaning} is a list of attribute names')
                self.meanings[meaning] = tuple(entry[meaning])
        for single, listed in (('received_from', 'peer'), ('received_tag', 'tag')):
            if single in self.meanings and self.meanings[single][0] not in \
                    self.meanings.get(listed, ()):
                raise DefinitionError(f'{where}: {single} is not one of {listed}')
        self.calls = []

    def holds(self, call):
        if self.part_of is not None:
            return (call.layer or MPI_LAYER) == self.part_of and call.family in self.families
        return (call.layer or MPI_LAYER) == self.key

    def check_meanings(self, dialect):
        """Every attribute a meaning names is an attribute, of that
        meaning's kind, of one of the layer's calls (or of an element below
        them, as MPI-IO's offset and size in <Data>)."""
        where = f'{dialect.path}: [layers.{self.key}]'
        kinds = {}
        for call in self.calls:
            for attribute in call.attributes:
                kinds.setdefault(attribute.name, set()).add(attribute.kind)
        for attributes in dialect.elements.values():
            for attribute in attributes:
                kinds.setdefault(attribute.name, set()).add(attribute.kind)
        wanted = dict(SINGLE_MEANINGS, **LIST_MEANINGS)
        for meaning, names in self.meanings.items():
            for name in names:
                if wanted[meaning] not in kinds.get(name, ()):
                    raise DefinitionError(f'{where}: {meaning} names "{name}", which no call of '
                                          f'the layer has as an attribute of kind '
                                          f'{wanted[meaning]}')

    def columns(self):
        """{attribute name: (column, priority)} of this layer's meanings: the
        readers' column the attribute fills, and its rank among attributes
        filling the same column in one call (0 first)."""
        found = {}
        meanings = self.meanings
        for meaning, names in meanings.items():
            if meaning in EXPORT_MEANINGS:
                continue
            for priority, name in enumerate(names):
                if meaning == 'asked':
                    column = 'asked' if 'done' in meanings else 'bytes'
                elif meaning == 'done':
                    column = 'bytes'
                elif meaning in ('received_from', 'received_tag'):
                    continue  # a peer or tag as well: marked below
                else:
                    column = meaning
                found[name] = (column, priority)
        for single in ('received_from', 'received_tag'):
            if single in meanings:
                name = meanings[single][0]
                found[name] = (single, found[name][1])
        return found


class InfoLine:
    """One .info line kind: its keyword and fields (name, kind, quote, optional)."""

    def __init__(self, keyword, entry, dialect):
        where = f'{dialect.path}: [info.{keyword}]'
        self.keyword = keyword
        self.fields = []
        for field in entry.get('fields', []):
            if set(field) - {'name', 'kind', 'quote', 'optional'} or 'name' not in field:
                raise DefinitionError(f'{where}: field {field} has unknown keys or no name')
            if field.get('kind') not in dialect.kinds or field.get('quote') not in QUOTES:
                raise DefinitionError(f'{where}: field {field["name"]}: unknown kind or quote')
            self.fields.append(dict(field, optional=field.get('optional', False)))
        if not self.fields:
            raise DefinitionError(f'{where}: no fields')


class Dialect:
    def __init__(self, path=DEFAULT_PATH):
        self.path = path
        try:
            with open(path, 'rb') as source:
                data = tomllib.load(source)
        except tomllib.TOMLDecodeError as error:
            raise DefinitionError(f'{path}: {error}') from None
        self.version = data.get('version')
        self.kinds = dict(data['kinds'])
        self.families = list(data['families']['order'])
        # The views' colour of each family, in its order.
        self.family_colours = list(data['families'].get('colours', []))
        if len(self.family_colours) != len(self.families) or not all(
                isinstance(colour, str) and re.fullmatch(r'#[0-9a-f]{6}', colour)
                for colour in self.family_colours):
            raise DefinitionError(f'{self.path}: [families] colours must give each family of '
                                  f'order a colour "#rrggbb", in its order')
        elements = dict(data['elements'])
        self.call_end = _attributes(f'{path}: [elements]', elements.pop('call_end'), self.kinds)
        self.elements = {name: _attributes(f'{path}: [elements.{name}]', entry['attributes'],
                                           self.kinds)
                         for name, entry in elements.items()}
        self.element_contents = {name: entry.get('contains', '')
                                 for name, entry in elements.items()}
        layers = dict(data.get('layers', {}))
        order = layers.pop('order', None)
        if order is None or sorted(order) != sorted(layers):
            raise DefinitionError(f'{path}: [layers] order must list every layer once')
        if MPI_LAYER not in layers:
            raise DefinitionError(f'{path}: [layers] has no layer {MPI_LAYER}')
        self.layer_entries = {key: layers[key] for key in order}
        self.calls = {tag: Call(tag, entry, self) for tag, entry in data['calls'].items()}
        self.layers = {key: Layer(key, entry, self) for key, entry in self.layer_entries.items()}
        for layer in self.layers.values():
            layer.calls = [call for call in self.calls.values() if layer.holds(call)]
            if not layer.calls:
                raise DefinitionError(f'{path}: [layers.{layer.key}]: holds no call')
            layer.check_meanings(self)
        clash = set(self.calls) & set(self.elements)
        if clash:
            raise DefinitionError(f'{path}: {sorted(clash)} are both calls and elements')
        self.info = {keyword: InfoLine(keyword, entry, self)
                     for keyword, entry in data['info'].items()}
        self.groups = {}
        for key, layer in self.layers.items():
            selectors = ({'layers': [layer.part_of], 'families': layer.families}
                         if layer.part_of else {'layers': [key]})
            self.groups[key] = Group(key, dict(selectors, about=layer.about), self, is_layer=True)
        for name, entry in data.get('groups', {}).items():
            if name in self.groups:
                raise DefinitionError(f'{path}: [groups.{name}] has the name of a layer')
            self.groups[name] = Group(name, entry, self)
        self.columns = self._attribute_columns()

    def base_layer_names(self):
        """The layers a call's layer key may name (those that are no part)."""
        return [key for key, entry in self.layer_entries.items() if not entry.get('part_of')]

    def layer_of(self, call):
        """The layer a call belongs to (not a part: MPI, not MPI-IO)."""
        return self.layers[call.layer or MPI_LAYER]

    def io_layer_of(self, call):
        """The innermost layer holding a call that works on files, or None."""
        for layer in reversed(list(self.layers.values())):
            if layer.io and layer.holds(call):
                return layer
        return None

    def _attribute_columns(self):
        """{attribute name: (column, priority)} over every layer: the readers
        look attributes up by name, so a name must fill the same column, at
        the same priority, in every layer that gives it a meaning."""
        columns = {}
        for layer in self.layers.values():
            for name, column in layer.columns().items():
                if columns.setdefault(name, column) != column:
                    raise DefinitionError(
                        f'{self.path}: [layers.{layer.key}]: attribute "{name}" fills the '
                        f'column {column[0]} (priority {column[1]}), another layer\'s '
                        f'{columns[name][0]} (priority {columns[name][1]}); the readers look '
                        f'attributes up by name')
        return columns

    def tags(self, **roles):
        """The tags, in definition order, of the calls whose roles have these
        values (True: the role is present at all)."""
        found = []
        for tag, call in self.calls.items():
            if all((call.roles.get(key) is not None) if wanted is True
                   else call.roles.get(key) == wanted for key, wanted in roles.items()):
                found.append(tag)
        return found


def load(path=DEFAULT_PATH):
    return Dialect(path)
