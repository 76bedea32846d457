-- The rules engine names units and officers by small stable ids
-- (`UnitId`, `OfficerId` in the battle state snapshot). Keep each row's
-- rules id beside it so orders, events and reports can move between the
-- store's rows and the snapshot without matching on names.
ALTER TABLE units ADD COLUMN rules_id INTEGER CHECK (rules_id IS NULL OR rules_id >= 1);
ALTER TABLE officers ADD COLUMN rules_id INTEGER CHECK (rules_id IS NULL OR rules_id >= 1);
CREATE UNIQUE INDEX units_rules_id ON units(game_id, rules_id) WHERE rules_id IS NOT NULL;
CREATE UNIQUE INDEX officers_rules_id ON officers(game_id, rules_id) WHERE rules_id IS NOT NULL;
