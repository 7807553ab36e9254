"""Sources for the Python API: a config dict or object, and facts given as a dict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cgconfig.errors import InputError
from cgconfig.provenance import Layer
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Contribution, Settings
from cgconfig.sources.documents import leaves_from_mapping, leaves_from_object, validate_leaf

if TYPE_CHECKING:
    from cgconfig.fields.config import CudaGraphConfig


@dataclass
class ConfigValue:
    """A config as a dict (every key locks) or a ``CudaGraphConfig`` (only the fields the
    caller set lock); ``None`` sets nothing."""

    config: dict[str, Any] | CudaGraphConfig | None

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Validate every value once, each with a pointer to where it sat."""
        del so_far
        if self.config is None:
            return Contribution()
        if isinstance(self.config, dict):
            return Contribution(leaves=leaves_from_mapping(self.config, "config dict",
                                                           Layer.CONFIG))
        # Checked again here: a field changed after construction (cfg.decode.max_bs = -4)
        # bypassed pydantic's validation.
        try:
            leaves = leaves_from_object(self.config)
        except (AttributeError, TypeError, ValueError) as exc:
            raise InputError(f"not a valid CudaGraphConfig ({exc})",
                             where="CudaGraphConfig") from None
        for leaf in leaves:
            validate_leaf(leaf.key, leaf.value, f"CudaGraphConfig.{leaf.key}")
        return Contribution(leaves=leaves)


@dataclass
class FactValues:
    """Deployment facts as a dict. With ``fill_only``, earlier sources' facts win."""

    facts: dict[str, Any]
    fill_only: bool = False

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """The facts, each sourced as ``facts['name']``."""
        chosen = {k: v for k, v in self.facts.items()
                  if not (self.fill_only and k in so_far.facts)}
        return Contribution(facts=chosen, fact_sources={k: f"facts[{k!r}]" for k in chosen})


@dataclass
class SettingValues:
    """Resolution settings given as Python arguments; they override what came before."""

    settings: Settings

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Only the settings."""
        del so_far
        return Contribution(settings=self.settings)
