"""The factions of units and how they draw on each other, on an invented checkout in the BSData schema
(tests/fixtures/bsdata-factions):

- Stone Legion ('Realm - Adamant Host - Stone Legion') has two chapters, Marble Sons and Slate Brothers,
  whose catalogues import its units (importRootEntries) within its group of names: it is their parent;
- Envoys is imported by Stone Legion, its chapters and Iron Wardens (as Agents of the Imperium are);
- Iron Wardens keeps its units in a library ('Realm - Iron Wardens - Library'), which also holds a
  Shade Court unit (its Faction keyword names the Shade Court catalogue that links the library);
- 'Library - Beasts' is imported by Stone Legion; its unit has no Faction keyword;
- Boulder Tank is a unit of Stone Legion (Sv3+), Slate Brothers (Sv2+) and Iron Wardens (Sv4+); Old
  Dreadnought of Slate Brothers and Iron Wardens; Envoy Herald of Envoys and Marble Sons; Legion
  Captain of Stone Legion (leads Rampart Squad) and Iron Wardens (leads Warden Militia).
"""

from __future__ import annotations

from pathlib import Path

import defusedxml.ElementTree as SafeET
import pytest

from mathhammer_exact.catalogue import build, index
from mathhammer_exact.catalogue.factions import Catalogues, Factions, faction_name
from mathhammer_exact.catalogue.library import factions
from mathhammer_exact.data import load

CHECKOUT = Path(__file__).parent / "fixtures" / "bsdata-factions"


@pytest.fixture
def realm(tmp_path, monkeypatch):
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(CHECKOUT)


# --------------------------------------------------------------------- names and factions as the data has them
@pytest.mark.parametrize(("catalogue", "library", "faction"), [
    ("Imperium - Adeptus Astartes - Blood Angels", False, "Blood Angels"),
    ("Xenos - Orks", False, "Orks"),
    ("Unaligned Forces", True, "Unaligned Forces"),
    ("Imperium - Astra Militarum - Library", True, "Astra Militarum"),
    ("Aeldari - Aeldari Library", True, "Aeldari"),
    ("Library - Titans", True, "Titans"),
])
def test_the_faction_a_catalogue_name_stands_for(catalogue, library, faction):
    assert faction_name(catalogue, library) == faction


def test_a_library_name_completed_by_the_faction_that_links_it():
    # 'Chaos - Daemons Library' is linked by 'Chaos - Chaos Daemons' (and others): its units are Chaos Daemons'
    def catalogue(ident: str, name: str, library: bool, links: str = "", units: str = "") -> str:
        return (f'<catalogue id="{ident}" name="{name}" library="{str(library).lower()}"><catalogueLinks>{links}'
                f'</catalogueLinks><sharedSelectionEntries>{units}</sharedSelectionEntries></catalogue>')
    link = '<catalogueLink targetId="lib" importRootEntries="true"/>'
    roots = [SafeET.fromstring(text) for text in (
        catalogue("lib", "Chaos - Daemons Library", True,
                  units='<selectionEntry type="unit" name="Bloodletters"/>'),
        catalogue("cd", "Chaos - Chaos Daemons", False, link),
        catalogue("csm", "Chaos - Chaos Space Marines", False, link))]
    found = Catalogues.read(roots)
    assert found.home("lib") == "Chaos Daemons"
    assert found.relations().army["chaos space marines"] == {"chaos daemons"}


def test_unit_factions_and_how_factions_draw_on_each_other(realm):
    # a library's units: of the linking faction their Faction keyword names, else of the library's own name
    assert [load.datasheet(name).faction for name in ("Warden Militia", "Shade Stalker", "Grove Beast")] == [
        "Iron Wardens", "Shade Court", "Beasts"]
    assert factions() == Factions(
        names=("Beasts", "Envoys", "Iron Wardens", "Marble Sons", "Shade Court", "Slate Brothers", "Stone Legion"),
        army={"iron wardens": frozenset({"envoys"}),
              "marble sons": frozenset({"beasts", "envoys", "stone legion"}),
              "slate brothers": frozenset({"beasts", "envoys", "stone legion"}),
              "stone legion": frozenset({"beasts", "envoys"})},
        parent={"marble sons": "Stone Legion", "slate brothers": "Stone Legion"})
    relations = factions()
    assert [relations.rank("Marble Sons", other) for other in
            ("marble sons", "Stone Legion", "Envoys", "Slate Brothers", "Iron Wardens")] == [0, 1, 1, 2, None]
