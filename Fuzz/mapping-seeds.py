#!/usr/bin/env python3
"""Writes the seeds of FuzzMappingModel (Fuzz/Seeds/mapping-model/), each led by its mode byte.

Usage: mapping-seeds.py OUT-FOLDER FILE.xcmapping.xml...   (layout: Formats/xcmappingmodel.md)

- 0 + an xcmapping.xml: each file given, with the source and destination models it embeds
  (`sourcemodeldata`, `destinationmodeldata`, 90% of its bytes, never read) emptied so that it
  fits libFuzzer's -max_len; and a small mapping with every kind of row.
- 1 + format text: the expressions of MappingExpressionTests and a few that do not parse.
- 2 + a keyed archive of an expression: each `valueexpressiondata` of the files given, and
  archives of the classes and forms the files lack (plistlib writes them as Foundation does).
"""
import base64
import os
import plistlib
import re
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, mode, data):
    with open(os.path.join(out, name), "wb") as file:
        file.write(bytes([mode]) + data)


# Mode 0: mapping files.
MODEL_DATA = re.compile(
    rb'(<attribute name="(?:source|destination)modeldata" type="binary">).*?(</attribute>)', re.S)
VALUE_DATA = re.compile(rb'<attribute name="valueexpressiondata" type="binary">(.*?)</attribute>', re.S)
archives = []
for path in sys.argv[2:]:
    text = open(path, "rb").read()
    short = os.path.basename(path).split("__")[-1].split(".")[0].lower().replace("_", "-")
    write("mapping-%s.xml" % short, 0, MODEL_DATA.sub(rb"\1\2", text))
    for match in VALUE_DATA.finditer(text):
        archive = base64.b64decode(match.group(1))
        if archive not in archives:
            archives.append(archive)

SMALL = b"""<?xml version="1.0" standalone="no"?>
<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

<database>
    <databaseInfo>
        <version>134481920</version>
        <UUID>5A0F38F7-8C55-4C3B-9D8E-0B1C7E0F3A11</UUID>
        <nextObjectID>108</nextObjectID>
    </databaseInfo>
    <object type="XDDEVMAPPINGMODEL" id="z101">
        <attribute name="sourcemodelpath" type="string">Moody.xcdatamodeld/Moody 2.xcdatamodel</attribute>
        <attribute name="destinationmodelpath" type="string">Moody.xcdatamodeld/Moody 3.xcdatamodel</attribute>
        <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z102 z103 z108"></relationship>
    </object>
    <object type="XDDEVENTITYMAPPING" id="z102">
        <attribute name="sourcename" type="string">Mood</attribute>
        <attribute name="destinationname" type="string">Mood</attribute>
        <attribute name="mappingnumber" type="int16">1</attribute>
        <attribute name="mappingtypename" type="string">Undefined</attribute>
        <attribute name="autogenerateexpression" type="bool">1</attribute>
        <attribute name="sourcefilterpredicatestring" type="string">rating &gt; 2</attribute>
        <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="z101"></relationship>
        <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z104 z105"></relationship>
        <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z106"></relationship>
    </object>
    <object type="XDDEVENTITYMAPPING" id="z103">
        <attribute name="name" type="string">CountrySplit</attribute>
        <attribute name="sourcename" type="string">Country</attribute>
        <attribute name="destinationname" type="string">Country</attribute>
        <attribute name="migrationpolicyclassname" type="string">Moody.CountryPolicy</attribute>
        <attribute name="mappingnumber" type="int16">2</attribute>
        <attribute name="autogenerateexpression" type="bool">1</attribute>
        <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="z101"></relationship>
        <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z107"></relationship>
    </object>
    <object type="XDDEVATTRIBUTEMAPPING" id="z104">
        <attribute name="name" type="string">rating</attribute>
        <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z102"></relationship>
    </object>
    <object type="XDDEVATTRIBUTEMAPPING" id="z105">
        <attribute name="name" type="string">colors</attribute>
        <attribute name="valueexpressiondata" type="binary">%s</attribute>
        <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z102"></relationship>
    </object>
    <object type="XDDEVRELATIONSHIPMAPPING" id="z106">
        <attribute name="name" type="string">country</attribute>
        <attribute name="autogenerateexpression" type="bool">1</attribute>
        <attribute name="sourcekeypath" type="string">$source.country</attribute>
        <attribute name="sourcemappingname" type="string">CountrySplit</attribute>
        <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z102"></relationship>
    </object>
    <object type="XDDEVRELATIONSHIPMAPPING" id="z107">
        <attribute name="name" type="string">moods</attribute>
        <attribute name="sourcemappingname" type="string">MoodToMood</attribute>
        <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z103"></relationship>
    </object>
    <object type="XDDEVENTITYMAPPING" id="z108">
        <attribute name="destinationname" type="string">Continent</attribute>
        <attribute name="mappingnumber" type="int16">3</attribute>
        <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="z101"></relationship>
    </object>
</database>
"""


# Mode 2: archives. A builder like the tests' ArchiveBuilder.
class Archive:
    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def object(self, class_name, fields):
        if class_name not in self.classes:
            self.classes[class_name] = self.add(
                {"$classname": class_name, "$classes": [class_name, "NSObject"]})
        return self.add(dict(fields, **{"$class": self.classes[class_name]}))

    def variable(self, name):
        return self.object("NSVariableExpression", {"NSVariable": self.add(name), "NSExpressionType": 2})

    def constant(self, value):
        fields = {"NSExpressionType": 0}
        if value is not None:
            fields["NSConstantValue"] = value if isinstance(value, plistlib.UID) else self.add(value)
        return self.object("NSConstantValueExpression", fields)

    def key_path(self, operand, path):
        specifier = self.object(
            "NSKeyPathSpecifierExpression", {"NSKeyPath": self.add(path), "NSExpressionType": 10})
        arguments = self.object("NSMutableArray", {"NS.objects": [specifier]})
        return self.object("NSKeyPathExpression", {
            "NSOperand": operand, "NSSelectorName": self.add("valueForKeyPath:"),
            "NSArguments": arguments, "NSExpressionType": 4})

    def function(self, operand, selector, arguments):
        array = self.object("NSArray", {"NS.objects": arguments})
        return self.object("NSFunctionExpression", {
            "NSOperand": operand, "NSSelectorName": self.add(selector), "NSArguments": array,
            "NSExpressionType": 4})

    def builtins(self):
        return self.object("NSConstantValueExpression", {
            "NSConstantValueClassName": self.add("_NSPredicateUtilities"), "NSExpressionType": 0})

    def data(self, root, cf_uids=False):
        """The archive; with `cf_uids`, references are written `{CF$UID: n}`, as some archivers
        write them."""
        top = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root},
               "$objects": self.objects}
        return plistlib.dumps(as_cf_uids(top) if cf_uids else top, fmt=plistlib.FMT_BINARY,
                              sort_keys=False)


def as_cf_uids(value):
    if isinstance(value, plistlib.UID):
        return {"CF$UID": value.data}
    if isinstance(value, dict):
        return {key: as_cf_uids(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_cf_uids(item) for item in value]
    return value


def crafted():
    """Archives of what the corpus lacks: arithmetic, a key path from a key path, NSString,
    NSMutableString and NSDate constants, nil, reals, and a class Folio refuses."""
    a = Archive()
    temperature = a.key_path(a.variable("source"), "temperature")
    difference = a.function(a.builtins(), "from:subtract:", [temperature, a.constant(32.0)])
    yield "arithmetic", a.data(a.function(a.builtins(), "divide:by:", [difference, a.constant(1.8)]))
    a = Archive()
    yield "nested-key-path", a.data(
        a.key_path(a.key_path(a.variable("source"), "country"), "continent"), cf_uids=True)
    a = Archive()
    text = a.object("NSMutableString", {"NS.string": a.add("Unknown")})
    yield "mutable-string", a.data(a.constant(text))
    a = Archive()
    text = a.object("NSString", {"NS.bytes": b"caf\xc3\xa9"})
    yield "string-bytes", a.data(a.function(a.builtins(), "uppercase:", [a.constant(text)]))
    a = Archive()
    date = a.object("NSDate", {"NS.time": 726868800.5})
    yield "date", a.data(a.constant(date))
    a = Archive()
    yield "nil", a.data(a.constant(None))
    a = Archive()
    policy = a.function(a.variable("entityPolicy"), "colorFor:", [a.key_path(a.variable("source"), "rating")])
    yield "policy-function", a.data(a.key_path(policy, "hexValue"))
    a = Archive()
    subquery = a.object("NSSubqueryExpression", {"NSExpressionType": 13})
    yield "subquery", a.data(subquery)


for index, archive in enumerate(archives):
    write("archive-%02d.bplist" % (index + 1), 2, archive)
small_archive = None
for name, archive in crafted():
    write("archive-%s.bplist" % name, 2, archive)
    if name == "arithmetic":
        small_archive = archive
write("mapping-small.xml", 0, SMALL % base64.b64encode(small_archive))

# Mode 1: format text.
EXPRESSIONS = [
    "$source.name", "$source.continent.numericISO3166Code",
    "$source.countries.@distinctUnionOfSets.moods", "$destination", '"Unknown"',
    r'"say \"hi\"\\\n\t\r\0\u0007 é 😀"', "0", "-9223372036854775808", "2.5", "1e-05", "-32.0",
    'CAST("inf", "NSNumber")', 'CAST("nan", "NSNumber")', "YES", "NO", "nil", 'CAST(726868800.5, "NSDate")',
    "now()", "uppercase:($source.name)",
    'FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",'
    ' "PersonToPerson", $source.owner)',
    'FUNCTION($entityPolicy, "colorFor:", $source.rating).hexValue',
    "($source.temperature - 32.0) / 1.8", "1 - (2 - 3)", "1 + 2 * -3", "($source.a + 1).description",
    "add:to:(1)", "TRUE", "false", "NULL", "'single'", "function($manager, 'sel:')",
    '"\\uD83D\\uDE00"', "  $source . name  ", "((1))", ".5", "99999999999999999999",
    "$source.a $source.b", '"a\\qb"', "12abc", "(1 + 2", 'CAST(1, "NSString")',
    'CAST("soon", "NSDate")', "- $source.a", "foo(1)", "bar:baz:(1, 2)", "$source.#in",
    "(now()).timeIntervalSinceNow", "2 ** 3 & ~$source.a << 1", "@2001-01-02", "0x1F",
    "SELF", "{1, 2}", "$source.tags[0]", "CAST($source.age, 'NSString')",
    'CAST("12.5", "NSDecimalNumber")', "TERNARY($source.a > 1, 1, 2)",
]
for index, text in enumerate(EXPRESSIONS):
    write("expression-%02d.txt" % (index + 1), 1, text.encode("utf-8"))
