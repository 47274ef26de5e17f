"""The HDF5 library's functions the HDF5 layer wraps, from which
scripts/generate-library-wrappers.py writes their wrappers, the table of
HDF5's own functions they call, and the attribute writing of each call the
dialect defines (format/dialect.toml, layer hdf5).

Each function is recorded as the call of its `tag` through one of the shapes
of Hdf5Shapes.hpp: what the wrapper learns of the call once HDF5 returned.
The generator checks every entry against the definition (the tag is a call
of the layer whose wrappers key names this file, its shape gives exactly
that call's attributes before the error, every call of the layer has a
function) and fails naming the function and the key where they disagree.
"""

# How the generated code is named and what it includes: the records are
# Hdf5Record_<tag>, the table of HDF5's functions RealHdf5 (realHdf5() in
# Hdf5Real.hpp looks it up once).
PREFIX = 'Hdf5'
HEADER_INCLUDES = ['<hdf5.h>']
SHAPES_HEADER = 'Hdf5Shapes.hpp'
MARKER = 'hdtracempi_hdf5'
# Some calls have no file (H5Pset_*): each shape writes the file id itself.
FILE_ATTRIBUTE_FIRST = False
# Every shape fills the one struct of Hdf5Call.hpp.
VALUE_TYPES = {shape: 'Hdf5Values' for shape in (
    'file-open', 'on-file', 'named', 'dataset-create', 'dataset-open', 'dataset-transfer',
    'dataset-extent', 'dataset', 'attribute-transfer', 'file-access', 'transfer-mode')}

# What each shape knows of a call, by the attribute of the dialect it fills:
# a C++ expression over the Hdf5Values `values`. The error (the negative
# value a failed call returned) follows, written by Hdf5Call.
SHAPE_VALUES = {
    'file-open': {'fid': 'values.fid', 'flags': 'values.flags'},
    'on-file': {'fid': 'values.fid'},
    'named': {'fid': 'values.fid', 'name': 'values.name'},
    'dataset-create': {'fid': 'values.fid', 'dataset': 'values.dataset', 'name': 'values.name',
                       'layout': 'values.layout', 'typeSize': 'values.fileTypeSize',
                       'elements': 'values.elements'},
    'dataset-open': {'fid': 'values.fid', 'dataset': 'values.dataset', 'name': 'values.name'},
    'dataset-transfer': {'fid': 'values.fid', 'dataset': 'values.dataset', 'size': 'values.size',
                         'memTypeSize': 'values.memTypeSize',
                         'fileTypeSize': 'values.fileTypeSize', 'transfer': 'values.transfer'},
    'dataset-extent': {'fid': 'values.fid', 'dataset': 'values.dataset',
                       'elements': 'values.elements'},
    'dataset': {'fid': 'values.fid', 'dataset': 'values.dataset'},
    'attribute-transfer': {'fid': 'values.fid', 'size': 'values.size',
                           'memTypeSize': 'values.memTypeSize'},
    'file-access': {'cid': 'values.cid'},
    'transfer-mode': {'transfer': 'values.transfer'},
}

H = 'hid_t'
# The condition (of the C preprocessor, after HEADER_INCLUDES) under which
# HDF5 declares its deprecated functions.
DEPRECATED = '!defined(H5_NO_DEPRECATED_SYMBOLS)'
# Each function: its tag, shape, return type, parameters (type, name), and
# the call of its shape (a function template of Hdf5Shapes.hpp taking the
# call's record as its template argument; `real` is HDF5's function); with
# only_if, a preprocessor condition without which the library has no such
# function (its wrapper and look-up are left out).
FUNCTIONS = {
    # --- Files: the id is the file's File line in the main trace's .info.
    'H5Fcreate': dict(tag='H5Fcreate', shape='file-open', returns=H,
                      params=[('const char *', 'name'), ('unsigned', 'flags'), (H, 'creation'),
                              (H, 'access')],
                      body='openFile<Record>(name, flags, [&] { '
                           'return real(name, flags, creation, access); })'),
    'H5Fopen': dict(tag='H5Fopen', shape='file-open', returns=H,
                    params=[('const char *', 'name'), ('unsigned', 'flags'), (H, 'access')],
                    body='openFile<Record>(name, flags, [&] { return real(name, flags, access); })'),
    'H5Fflush': dict(tag='H5Fflush', shape='on-file', returns='herr_t',
                     params=[(H, 'object'), ('H5F_scope_t', 'scope')],
                     body='onObject<Record>(object, Forget::No, [&] { return real(object, scope); })'),
    'H5Fclose': dict(tag='H5Fclose', shape='on-file', returns='herr_t', params=[(H, 'file')],
                     body='onObject<Record>(file, Forget::Yes, [&] { return real(file); })'),
    # --- Groups.
    'H5Gcreate2': dict(tag='H5Gcreate2', shape='named', returns=H,
                       params=[(H, 'location'), ('const char *', 'name'), (H, 'linkCreation'),
                               (H, 'creation'), (H, 'access')],
                       body='openNamed<Record>(location, name, [&] { return real(location, name, '
                            'linkCreation, creation, access); })'),
    'H5Gopen2': dict(tag='H5Gopen2', shape='named', returns=H,
                     params=[(H, 'location'), ('const char *', 'name'), (H, 'access')],
                     body='openNamed<Record>(location, name, [&] { '
                          'return real(location, name, access); })'),
    # HDF5 1.6's forms: deprecated, absent from an HDF5 built without them.
    'H5Gcreate1': dict(tag='H5Gcreate1', shape='named', returns=H,
                       params=[(H, 'location'), ('const char *', 'name'), ('size_t', 'sizeHint')],
                       body='openNamed<Record>(location, name, [&] { '
                            'return real(location, name, sizeHint); })',
                       only_if=DEPRECATED),
    'H5Gopen1': dict(tag='H5Gopen1', shape='named', returns=H,
                     params=[(H, 'location'), ('const char *', 'name')],
                     body='openNamed<Record>(location, name, [&] { '
                          'return real(location, name); })',
                     only_if=DEPRECATED),
    'H5Gclose': dict(tag='H5Gclose', shape='on-file', returns='herr_t', params=[(H, 'group')],
                     body='onObject<Record>(group, Forget::Yes, [&] { return real(group); })'),
    # --- Datasets: numbered per process as they are created or opened.
    'H5Dcreate2': dict(tag='H5Dcreate2', shape='dataset-create', returns=H,
                       params=[(H, 'location'), ('const char *', 'name'), (H, 'type'),
                               (H, 'space'), (H, 'linkCreation'), (H, 'creation'),
                               (H, 'access')],
                       body='createDataset<Record>(location, name, type, space, creation, [&] { '
                            'return real(location, name, type, space, linkCreation, creation, '
                            'access); })'),
    'H5Dopen2': dict(tag='H5Dopen2', shape='dataset-open', returns=H,
                     params=[(H, 'location'), ('const char *', 'name'), (H, 'access')],
                     body='openDataset<Record>(location, name, [&] { '
                          'return real(location, name, access); })'),
    # HDF5 1.6's forms: deprecated, absent from an HDF5 built without them.
    'H5Dcreate1': dict(tag='H5Dcreate1', shape='dataset-create', returns=H,
                       params=[(H, 'location'), ('const char *', 'name'), (H, 'type'),
                               (H, 'space'), (H, 'creation')],
                       body='createDataset<Record>(location, name, type, space, creation, [&] { '
                            'return real(location, name, type, space, creation); })',
                       only_if=DEPRECATED),
    'H5Dopen1': dict(tag='H5Dopen1', shape='dataset-open', returns=H,
                     params=[(H, 'location'), ('const char *', 'name')],
                     body='openDataset<Record>(location, name, [&] { '
                          'return real(location, name); })',
                     only_if=DEPRECATED),
    'H5Dwrite': dict(tag='H5Dwrite', shape='dataset-transfer', returns='herr_t',
                     params=[(H, 'dataset'), (H, 'memoryType'), (H, 'memorySpace'),
                             (H, 'fileSpace'), (H, 'transfer'), ('const void *', 'data')],
                     body='transferDataset<Record>(dataset, memoryType, memorySpace, fileSpace, '
                          'transfer, [&] { return real(dataset, memoryType, memorySpace, '
                          'fileSpace, transfer, data); })'),
    'H5Dread': dict(tag='H5Dread', shape='dataset-transfer', returns='herr_t',
                    params=[(H, 'dataset'), (H, 'memoryType'), (H, 'memorySpace'),
                            (H, 'fileSpace'), (H, 'transfer'), ('void *', 'data')],
                    body='transferDataset<Record>(dataset, memoryType, memorySpace, fileSpace, '
                         'transfer, [&] { return real(dataset, memoryType, memorySpace, '
                         'fileSpace, transfer, data); })'),
    'H5Dset_extent': dict(tag='H5Dset_extent', shape='dataset-extent', returns='herr_t',
                          params=[(H, 'dataset'), ('const hsize_t *', 'size')],
                          body='extendDataset<Record>(dataset, [&] { '
                               'return real(dataset, size); })'),
    'H5Dclose': dict(tag='H5Dclose', shape='dataset', returns='herr_t', params=[(H, 'dataset')],
                     body='onObject<Record>(dataset, Forget::Yes, [&] { return real(dataset); })'),
    # --- Attributes.
    'H5Acreate2': dict(tag='H5Acreate2', shape='named', returns=H,
                       params=[(H, 'location'), ('const char *', 'name'), (H, 'type'),
                               (H, 'space'), (H, 'creation'), (H, 'access')],
                       body='openNamed<Record>(location, name, [&] { return real(location, name, '
                            'type, space, creation, access); })'),
    'H5Aopen': dict(tag='H5Aopen', shape='named', returns=H,
                    params=[(H, 'object'), ('const char *', 'name'), (H, 'access')],
                    body='openNamed<Record>(object, name, [&] { '
                         'return real(object, name, access); })'),
    # HDF5 1.6's forms: deprecated, absent from an HDF5 built without them.
    'H5Acreate1': dict(tag='H5Acreate1', shape='named', returns=H,
                       params=[(H, 'location'), ('const char *', 'name'), (H, 'type'),
                               (H, 'space'), (H, 'creation')],
                       body='openNamed<Record>(location, name, [&] { return real(location, name, '
                            'type, space, creation); })',
                       only_if=DEPRECATED),
    'H5Aopen_name': dict(tag='H5Aopen_name', shape='named', returns=H,
                         params=[(H, 'object'), ('const char *', 'name')],
                         body='openNamed<Record>(object, name, [&] { '
                              'return real(object, name); })',
                         only_if=DEPRECATED),
    'H5Awrite': dict(tag='H5Awrite', shape='attribute-transfer', returns='herr_t',
                     params=[(H, 'attribute'), (H, 'memoryType'), ('const void *', 'data')],
                     body='transferAttribute<Record>(attribute, memoryType, [&] { '
                          'return real(attribute, memoryType, data); })'),
    'H5Aread': dict(tag='H5Aread', shape='attribute-transfer', returns='herr_t',
                    params=[(H, 'attribute'), (H, 'memoryType'), ('void *', 'data')],
                    body='transferAttribute<Record>(attribute, memoryType, [&] { '
                         'return real(attribute, memoryType, data); })'),
    'H5Aclose': dict(tag='H5Aclose', shape='on-file', returns='herr_t', params=[(H, 'attribute')],
                     body='onObject<Record>(attribute, Forget::Yes, [&] { '
                          'return real(attribute); })'),
    # --- Property lists: the communicator a file is opened on, and whether
    # transfers are collective or independent.
    'H5Pset_fapl_mpio': dict(tag='H5Pset_fapl_mpio', shape='file-access', returns='herr_t',
                             params=[(H, 'access'), ('MPI_Comm', 'comm'), ('MPI_Info', 'info')],
                             body='setFileAccess<Record>(comm, [&] { '
                                  'return real(access, comm, info); })'),
    'H5Pset_dxpl_mpio': dict(tag='H5Pset_dxpl_mpio', shape='transfer-mode', returns='herr_t',
                             params=[(H, 'transfer'), ('H5FD_mpio_xfer_t', 'mode')],
                             body='setTransferMode<Record>(transfer, mode, [&] { '
                                  'return real(transfer, mode); })'),
}


def _changes(answers, id_name, params):
    arguments = ', '.join(name for _, name in params)
    return dict(returns='herr_t', params=params,
                body=f'changes<{answers}>({id_name}, [&] {{ return real({arguments}); }})')


# The calls the layer defines without recording them: each may change what
# a transfer asks HDF5 at every call and the layer remembers (Hdf5Answers.hpp),
# the elements a dataspace selects, the size of a datatype, the mode of a
# transfer list. The wrapper runs HDF5's function, then forgets what the
# id answered. Every such call of HDF5's API is here: the others create new
# ids (H5Scopy, H5Scombine_select, H5Tcopy) or only ask.
_SELECT = 'H5S_seloper_t'
OBSERVED = {
    'H5Sselect_hyperslab': _changes('SelectedElements', 'space', [
        (H, 'space'), (_SELECT, 'op'), ('const hsize_t *', 'start'),
        ('const hsize_t *', 'stride'), ('const hsize_t *', 'count'),
        ('const hsize_t *', 'block')]),
    'H5Sselect_elements': _changes('SelectedElements', 'space', [
        (H, 'space'), (_SELECT, 'op'), ('size_t', 'elements'), ('const hsize_t *', 'coordinates')]),
    'H5Sselect_all': _changes('SelectedElements', 'space', [(H, 'space')]),
    'H5Sselect_none': _changes('SelectedElements', 'space', [(H, 'space')]),
    'H5Sselect_copy': _changes('SelectedElements', 'target',
                               [(H, 'target'), (H, 'source')]),
    'H5Smodify_select': _changes('SelectedElements', 'space',
                                 [(H, 'space'), (_SELECT, 'op'), (H, 'other')]),
    # A new extent selects all of it.
    'H5Sset_extent_simple': _changes('SelectedElements', 'space', [
        (H, 'space'), ('int', 'rank'), ('const hsize_t *', 'dimensions'),
        ('const hsize_t *', 'maximum')]),
    'H5Sset_extent_none': _changes('SelectedElements', 'space',
                                   [(H, 'space')]),
    'H5Sextent_copy': _changes('SelectedElements', 'target',
                               [(H, 'target'), (H, 'source')]),
    # A datatype's size: set, or grown by its precision or offset, or packed.
    'H5Tset_size': _changes('TypeSizes', 'type', [(H, 'type'), ('size_t', 'size')]),
    'H5Tset_precision': _changes('TypeSizes', 'type',
                                 [(H, 'type'), ('size_t', 'precision')]),
    'H5Tset_offset': _changes('TypeSizes', 'type',
                              [(H, 'type'), ('size_t', 'offset')]),
    'H5Tpack': _changes('TypeSizes', 'type', [(H, 'type')]),
    # A transfer list's mode by the generic property calls (H5Pset_dxpl_mpio
    # is recorded, above, and forgets it as well).
    'H5Pset': _changes('TransferModes', 'list',
                       [(H, 'list'), ('const char *', 'name'), ('const void *', 'value')]),
    'H5Pcopy_prop': _changes('TransferModes', 'target',
                             [(H, 'target'), (H, 'source'), ('const char *', 'name')]),
    'H5Premove': _changes('TransferModes', 'list',
                          [(H, 'list'), ('const char *', 'name')]),
    # Closes every object; ids are numbered from the first again.
    'H5close': dict(returns='herr_t', params=[],
                    body='closesLibrary([&] { return real(); })'),
}
