-- evalreport: choose, for each notebook cell output, the representation Typst can use.
-- Run on `pandoc -f ipynb --ipynb-output=all` so that every representation is present:
--   * images (image/png, image/svg+xml)         -> kept (charts); wider than the text -> 100%
--   * application/vnd.evalreport.typst+json     -> its "typst" source, as raw Typst (tables laid
--                                                  out by evalreport.report.typst_table); pandoc's
--                                                  ipynb reader gives it as a `json` code block
--                                                  {"evalreport": "typst-table", "typst": ...}
--   * text/markdown                             -> parsed as Markdown (notes, headings; tables
--                                                  when there is no Typst source)
--   * raw typst                                 -> kept
--   * text/html, text/latex, ...                -> dropped
--   * text/plain                                -> kept only when nothing better exists
-- Code (cell inputs) and stderr streams are removed; cell wrappers are unwrapped.
--
-- Quarto runs this same file (the `filters:` of _quarto.yml, at `pre-ast`) on the Markdown it
-- writes from the joined notebook, whose metadata sets `evalreport-quarto: true`. There Quarto
-- has already picked one representation per output (text/html for HTML, text/markdown for
-- Typst), so evalreport.report.quarto puts each table's Typst source at the head of the
-- table's text/markdown, as the same `json` code block, and marks the table's cell with the
-- class `er-table-cell`. Then only table cells change (charts, captions and headings stay
-- Quarto's): see quarto_document at the end.

-- Widest image, in CSS pixels, shown at natural size (A4 text width at 96 px/in, 2 cm margins).
local MAX_WIDTH_PX = 640
-- Tallest image: about 70% of the text height, so a chart fits on a page together with its
-- heading, introducing sentences (which stick to it) and caption; a taller chart is scaled
-- down (a chart much taller than this is too dense for a page anyway: charts should be made
-- wide rather than tall).
local MAX_HEIGHT_PX = 670

local function has_class(el, name)
  for _, c in ipairs(el.classes) do
    if c == name then return true end
  end
  return false
end

local function single_image(block)
  if (block.t == "Para" or block.t == "Plain") and #block.content == 1
      and block.content[1].t == "Image" then
    return block.content[1]
  end
  return nil
end

local function fit_image(img)
  local n = tonumber(img.attributes["width"] or "")
  local h = tonumber(img.attributes["height"] or "")
  if n and h and h > MAX_HEIGHT_PX then
    n = n * MAX_HEIGHT_PX / h
    img.attributes["width"] = string.format("%.0f", n)
    h = MAX_HEIGHT_PX
  end
  img.attributes["er-height"] = h and string.format("%.0f", h) or nil
  if n and n > MAX_WIDTH_PX then
    img.attributes["width"] = "100%"
  end
  -- Keep the aspect ratio from the width alone.
  img.attributes["height"] = nil
  return img
end

-- Boxes for the fenced divs our display objects write (evalreport.report.display). A note may
-- run over a page break (a long findings block must not push a whole page ahead).
local function typst(text) return pandoc.RawBlock("typst", text) end

local STYLES = {
  ["er-note"] = {
    "#block(width: 100%, inset: (x: 10pt, y: 7pt), fill: rgb(\"#eef6fb\"), "
      .. "stroke: (left: 3pt + rgb(\"#0072b2\")), breakable: true)[",
    "]" },
  ["er-note-warning"] = {
    "#block(width: 100%, inset: (x: 10pt, y: 7pt), fill: rgb(\"#fdf1ea\"), "
      .. "stroke: (left: 3pt + rgb(\"#d55e00\")), breakable: true)[",
    "]" },
  ["er-table-notes"] = { "#align(center)[#text(size: 8.5pt, fill: luma(70))[", "]]" },
}

function styled(blocks)
  return blocks:walk({
    Div = function(div)
      for _, key in ipairs({ "er-note-warning", "er-note", "er-table-notes" }) do
        if has_class(div, key) then
          local out = pandoc.Blocks({ typst(STYLES[key][1]) })
          out:extend(div.content)
          out:insert(typst(STYLES[key][2]))
          return out
        end
      end
    end,
  })
end

-- The Typst representation of a display object: a `json` code block {"typst": "..."}.
local function typst_payload(block)
  if block.t ~= "CodeBlock" or not has_class(block, "json") then return nil end
  local ok, obj = pcall(pandoc.json.decode, block.text, false)
  if ok and type(obj) == "table" and obj.evalreport == "typst-table" and type(obj.typst) == "string" then
    return pandoc.RawBlock("typst", obj.typst)
  end
  return nil
end

local function choose(blocks)
  local image, markdown, typst, plain
  for _, b in ipairs(blocks) do
    local img = single_image(b)
    local payload = typst_payload(b)
    if payload then
      typst = typst or payload
    elseif img and not image then
      image = img
    elseif b.t == "RawBlock" then
      local f = b.format:lower()
      if f == "markdown" and not markdown then
        markdown = b.text
      elseif f == "typst" and not typst then
        typst = b
      end
    elseif b.t == "CodeBlock" and not plain then
      plain = b
    elseif b.t ~= "RawBlock" and not plain then
      plain = b
    end
  end
  if image then
    local caption = image.attributes["caption"]
    image.attributes["caption"] = nil
    image = fit_image(image)
    if caption and caption ~= "" then
      return { pandoc.Figure({ pandoc.Plain({ image }) }, { pandoc.Plain(pandoc.Inlines(caption)) }) }
    end
    return { pandoc.Para({ image }) }
  elseif typst then
    return { typst }
  elseif markdown then
    return styled(pandoc.read(markdown, "markdown-smart").blocks)
  elseif plain then
    return { plain }
  end
  return {}
end

local function output_div(div)
  if has_class(div, "stream") then
    if has_class(div, "stderr") then return {} end
    return div.content
  end
  if has_class(div, "error") then
    return div.content
  end
  return choose(div.content)
end

local function cell_div(div)
  local kept = {}
  local code = has_class(div, "code")
  for _, b in ipairs(div.content) do
    if b.t == "Div" and has_class(b, "output") then
      for _, o in ipairs(output_div(b)) do table.insert(kept, o) end
    elseif not (code and b.t == "CodeBlock") then  -- a direct CodeBlock is the cell's input
      table.insert(kept, b)
    end
  end
  return kept
end

-- A heading, the short text introducing what follows and a figure or table stay together:
-- the heading is sticky by itself (Typst), the introducing paragraphs and note boxes are made
-- sticky here, so
-- a page never ends with a heading and its first sentences while the figure starts the next.
local MAX_STICKY_CHARS = 900

local function image_height(b)
  local img = single_image(b)
  if not img and b.t == "Figure" and #b.content == 1 then img = single_image(b.content[1]) end
  return img and tonumber(img.attributes["er-height"] or "") or nil
end

-- A figure or table that can share a page with what introduces it.
local function is_float(b)
  if b.t == "Figure" or single_image(b) ~= nil then
    local h = image_height(b)
    return h == nil or h <= MAX_HEIGHT_PX
  end
  return b.t == "Table" or (b.t == "RawBlock" and b.format == "typst" and b.text:find("#figure", 1, true) ~= nil)
end

-- The helper attribute is for this filter only.
local function drop_helper_attributes(img)
  img.attributes["er-height"] = nil
  return img
end

-- A table set on a landscape page (evalreport.report.typst_table) is wrapped in
-- `#page(flipped: true)[ ... ]`, a page break no stickiness crosses: its heading and
-- introducing paragraphs go on the landscape page with it.
local function landscape_inner(b)
  if b.t ~= "RawBlock" or b.format ~= "typst" then return nil end
  return b.text:match("^#page%(flipped: true%)%[\n(.*)\n%]\n?$")
end

-- The end (one past) of the note box that opens at blocks[j] (a `styled` er-note or
-- er-note-warning: an opening raw block, the note's blocks, a closing "]"), and the length of its
-- text; nil when blocks[j] opens no note.
local function note_end(blocks, j)
  local b = blocks[j]
  if b.t ~= "RawBlock" or b.format ~= "typst"
      or (b.text ~= STYLES["er-note"][1] and b.text ~= STYLES["er-note-warning"][1]) then
    return nil
  end
  local depth, chars, k = 1, 0, j + 1
  while k <= #blocks do
    local c = blocks[k]
    if c.t == "RawBlock" and c.format == "typst" then
      for _, style in pairs(STYLES) do
        if c.text == style[1] then depth = depth + 1 end
      end
      if c.text == "]" or c.text == "]]" then depth = depth - 1 end
      if depth == 0 then return k + 1, chars end
    else
      chars = chars + #pandoc.utils.stringify(c)
    end
    k = k + 1
  end
  return nil
end

local function sticky_intros(doc)
  local blocks = doc.blocks
  local out = pandoc.Blocks({})
  local i = 1
  while i <= #blocks do
    local b = blocks[i]
    out:insert(b)
    i = i + 1
    if b.t == "Header" then
      -- paragraphs (or note boxes) right after the heading, then a figure/table? Each intro
      -- piece as [first, last] block indices.
      local j, chars, pieces = i, 0, {}
      while j <= #blocks do
        if blocks[j].t == "Para" or blocks[j].t == "Plain" then
          chars = chars + #pandoc.utils.stringify(blocks[j])
          table.insert(pieces, { j, j })
          j = j + 1
        else
          local stop, n = note_end(blocks, j)
          if not stop then break end
          chars = chars + n
          table.insert(pieces, { j, stop - 1 })
          j = stop
        end
      end
      local inner = j <= #blocks and chars <= MAX_STICKY_CHARS and landscape_inner(blocks[j])
      if inner then
        out:remove(#out)
        out:insert(typst("#page(flipped: true)["))
        out:insert(b)
        for k = i, j - 1 do out:insert(blocks[k]) end
        out:insert(typst(inner))
        out:insert(typst("]"))
        i = j + 1
      elseif j > i and j <= #blocks and is_float(blocks[j]) and chars <= MAX_STICKY_CHARS then
        -- a sticky block is unbreakable: a note box inside it moves whole, with the heading
        for _, piece in ipairs(pieces) do
          out:insert(typst("#block(sticky: true)["))
          for k = piece[1], piece[2] do out:insert(blocks[k]) end
          out:insert(typst("]"))
        end
        i = j
      end
    end
  end
  doc.blocks = out:walk({ Image = drop_helper_attributes })
  return doc
end

-- Top-down, so a cell is seen before its outputs; cells are not descended into again.
local builtin_cells = {
  traverse = "topdown",
  Div = function(div)
    if has_class(div, "cell") then
      return cell_div(div), false
    elseif has_class(div, "output") then
      return output_div(div), false
    end
  end,
}

-- Quarto ---------------------------------------------------------------------------------
-- A Quarto output div (`.cell-output`) holding a table's Typst source.
local function quarto_table_output(b)
  if b.t ~= "Div" or not has_class(b, "cell-output") then return false end
  for _, inner in ipairs(b.content) do
    if typst_payload(inner) then return true end
  end
  return false
end

-- Typst: a table cell becomes evalreport's Typst table, out of Quarto's cell and output divs
-- (which pandoc writes as `#block[...]`: a landscape `#page` may not stand in a container); the
-- pipe table Quarto would set instead is dropped. Notes get their boxes as in the builtin PDF.
local function quarto_typst(doc)
  doc.blocks = doc.blocks:walk({
    traverse = "topdown",
    Div = function(div)
      if not has_class(div, "cell") then return nil end
      local found, out = false, pandoc.Blocks({})
      for _, b in ipairs(div.content) do
        if quarto_table_output(b) then
          found = true
          out:extend(choose(b.content))
        else
          out:insert(b)
        end
      end
      if found then return out, false end
    end,
  })
  doc.blocks = styled(doc.blocks)
  return sticky_intros(doc)
end

-- HTML: evalreport's HTML table as it is (the cell option `html-table-processing: none` keeps
-- Quarto from re-parsing it), in a cell that spans the body and the right margin
-- (`.column-page-right`: the table of contents holds the left one); a table wider than that
-- scrolls inside its own box (report.css: .er-table-wrap). The class is added here rather than
-- by the cell option `column:`, so no column class reaches Quarto's Typst output (which would set
-- the block into the page margin). Other formats: the pipe table, without the Typst source.
local function quarto_document(doc)
  if FORMAT:match("typst") then
    return quarto_typst(doc)
  end
  local html = FORMAT:match("html") ~= nil
  doc.blocks = doc.blocks:walk({
    Div = function(div)
      if html and has_class(div, "cell") and has_class(div, "er-table-cell")
          and not has_class(div, "column-page-right") then
        div.classes:insert("column-page-right")
        return div
      end
    end,
    CodeBlock = function(b)
      if typst_payload(b) then return {} end
    end,
  })
  return doc
end

local function for_quarto(meta)
  local flag = meta["evalreport-quarto"]
  return flag == true or (flag ~= nil and pandoc.utils.stringify(flag) == "true")
end

return {
  {
    Pandoc = function(doc)
      if for_quarto(doc.meta) then
        return quarto_document(doc)
      end
      doc.blocks = doc.blocks:walk(builtin_cells)
      return sticky_intros(doc)
    end,
  },
}
