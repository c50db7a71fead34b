let x = undefined_name;
