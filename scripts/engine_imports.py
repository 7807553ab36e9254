"""Import an engine's parser modules on a machine without CUDA (for the scripts in this folder).

``prepare_imports`` puts an unpacked wheel first on ``sys.path`` and, with ``stub_missing``,
answers imports of native packages that the parser modules import but never call (CUDA kernels,
torchvision...) with permissive fakes; ``import_with_stubs`` adds each package a hard import
lacks by re-running the script with ``--stub NAME``.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import types
from typing import Any

#: Native packages imported at module level by the parser modules but never called while the
#: parser is built; stubbed with --stub-missing on machines without CUDA.
NATIVE_STUBS = ("torchvision", "tvm_ffi", "pynvml", "compressed_tensors", "sgl_kernel", "flashinfer")

class _FakeClass(type):
    """A stubbed class's own attributes are fakes too (SGLang 0.5.11-0.5.18's image processors
    read ``torchvision.transforms.InterpolationMode.NEAREST_EXACT`` at import)."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Fake()


class _Fake(metaclass=_FakeClass):
    """Permissive stand-in: every attribute, call, item and subclass works."""

    def __init__(self, *a: Any, **k: Any) -> None:
        pass

    def __call__(self, *a: Any, **k: Any) -> Any:
        if len(a) == 1 and not k and callable(a[0]) and not isinstance(a[0], _Fake):
            return a[0]  # used as a bare decorator
        return _Fake()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Fake()

    def __getitem__(self, key: Any) -> Any:
        return _Fake()

    def __iter__(self) -> Any:
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __mro_entries__(self, bases: Any) -> tuple[type, ...]:
        return (_Fake,)

    def __class_getitem__(cls, item: Any) -> Any:  # generic stand-ins: LRUCache[K, V]
        return cls

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # A stubbed class used as a pydantic field type (SGLang 0.5.19/0.5.20 annotate with
        # xgrammar.StructuralTag) validates as Any, as the engine's own no-xgrammar fallback.
        from pydantic_core import core_schema

        return core_schema.any_schema()


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name[:1].isupper():
            cls = type(name, (_Fake,), {"__module__": self.__name__})
            setattr(self, name, cls)
            return cls
        return _Fake()


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: Any) -> types.ModuleType:
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _StubFinder(importlib.abc.MetaPathFinder):
    """Answers imports of the named top-level packages with permissive fakes."""

    def __init__(self, roots: set[str]) -> None:
        self.roots = roots

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not any(fullname == r or fullname.startswith(r + ".") for r in self.roots):
            return None
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


def prepare_imports(sys_path: str | None, stub_missing: bool, extra: list[str]) -> _StubFinder | None:
    if sys_path:
        sys.path.insert(0, os.path.abspath(sys_path))
    if not stub_missing:
        return None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    with contextlib.suppress(ImportError):  # decides optional packages before any stub exists
        import transformers.utils.import_utils  # noqa: F401
    finder = _StubFinder(set(NATIVE_STUBS) | set(extra))
    sys.meta_path.insert(0, finder)
    return finder


def import_with_stubs(build: Any, engine_root: str, finder: _StubFinder | None) -> Any:
    """Call ``build()``; with --stub-missing, a package a hard import lacks is stubbed by
    re-running this script with ``--stub NAME`` (a module cannot be imported twice cleanly)."""
    try:
        return build()
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not missing.startswith(engine_root + "._"):  # the engine's own native extensions
            missing = missing.split(".")[0]
        if finder is None or not missing or missing == engine_root or missing in finder.roots:
            raise
        print(f"stubbing missing package {missing!r} and starting again", file=sys.stderr)
        os.execv(sys.executable, [sys.executable, *sys.argv, "--stub", missing])
