"""Tree definitions: model, loader, schema, builder, dumper, BT.CPP XML, renderer."""
